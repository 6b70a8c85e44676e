import { Module, type DynamicModule } from '@nestjs/common';
import { HealthController, RUNTIME, type ServiceRuntime } from '@flex/runtime';
import type { ApiTokens } from './auth/api-tokens';
import { API_TOKENS, AuthGuard } from './auth/auth.guard';
import { AdminController } from './admin/admin.controller';
import { CapabilitiesController } from './capabilities/capabilities.controller';
import { RunsController } from './runs/runs.controller';
import { RunsService } from './runs/runs.service';

@Module({})
export class GatewayModule {
  static forRuntime(runtime: ServiceRuntime, tokens: ApiTokens): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [HealthController, RunsController, CapabilitiesController, AdminController],
      providers: [
        { provide: RUNTIME, useValue: runtime },
        { provide: API_TOKENS, useValue: tokens },
        AuthGuard,
        RunsService,
      ],
    };
  }
}
