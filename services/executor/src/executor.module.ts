import { Module, type DynamicModule } from '@nestjs/common';
import { HealthController, RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { ExecutorHandler } from './executor.handler';

@Module({})
export class ExecutorModule {
  static forRuntime(runtime: ServiceRuntime, options: { http?: boolean } = {}): DynamicModule {
    return {
      module: ExecutorModule,
      controllers: options.http === false ? [ExecutorHandler] : [ExecutorHandler, HealthController],
      providers: [{ provide: RUNTIME, useValue: runtime }],
    };
  }
}
