import { Module, type DynamicModule } from '@nestjs/common';
import { projectionsFor } from '@flex/read-models';
import { HealthController, RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { RegistryService } from './registry.service';
import { PROJECTIONS } from './registry.tokens';

@Module({})
export class RegistryModule {
  static forRuntime(runtime: ServiceRuntime, options: { http?: boolean } = {}): DynamicModule {
    const projections = projectionsFor(runtime.database.db, runtime.store);
    return {
      module: RegistryModule,
      controllers: options.http === false ? [] : [HealthController],
      providers: [{ provide: RUNTIME, useValue: runtime }, { provide: PROJECTIONS, useValue: projections }, RegistryService],
      exports: [RegistryService],
    };
  }
}
