import { Module, type DynamicModule } from '@nestjs/common';
import { projectionsFor } from '@flex/read-models';
import { HealthController, RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { RegistryService } from './registry.service';
import { PROJECTIONS, REGISTRY_OPTIONS, type RegistryOptions } from './registry.tokens';

@Module({})
export class RegistryModule {
  static forRuntime(
    runtime: ServiceRuntime,
    options: { http?: boolean } & RegistryOptions = {},
  ): DynamicModule {
    const projections = projectionsFor(runtime.database.db, runtime.store);
    const { http, ...registryOptions } = options;
    return {
      module: RegistryModule,
      controllers: http === false ? [] : [HealthController],
      providers: [
        { provide: RUNTIME, useValue: runtime },
        { provide: PROJECTIONS, useValue: projections },
        { provide: REGISTRY_OPTIONS, useValue: registryOptions },
        RegistryService,
      ],
      exports: [RegistryService],
    };
  }
}
