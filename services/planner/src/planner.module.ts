import { Module, type DynamicModule } from '@nestjs/common';
import { HealthController, RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { PlannerHandler } from './planner.handler';

@Module({})
export class PlannerModule {
  static forRuntime(runtime: ServiceRuntime, options: { http?: boolean } = {}): DynamicModule {
    return {
      module: PlannerModule,
      controllers: options.http === false ? [PlannerHandler] : [PlannerHandler, HealthController],
      providers: [{ provide: RUNTIME, useValue: runtime }],
    };
  }
}
