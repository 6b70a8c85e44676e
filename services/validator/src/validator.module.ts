import { Module, type DynamicModule } from '@nestjs/common';
import { HealthController, RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { ValidatorHandler } from './validator.handler';

@Module({})
export class ValidatorModule {
  static forRuntime(runtime: ServiceRuntime, options: { http?: boolean } = {}): DynamicModule {
    return {
      module: ValidatorModule,
      controllers: options.http === false ? [ValidatorHandler] : [ValidatorHandler, HealthController],
      providers: [{ provide: RUNTIME, useValue: runtime }],
    };
  }
}
