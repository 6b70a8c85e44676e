import { Module, type DynamicModule } from '@nestjs/common';
import { HealthController, RUNTIME, type ServiceRuntime } from '@flex/runtime';
import type { ApiTokens } from './auth/api-tokens';
import { API_TOKENS, AuthGuard } from './auth/auth.guard';
import { AdminController } from './admin/admin.controller';
import { DashboardController } from './dashboard/dashboard.controller';
import { CapabilitiesController } from './capabilities/capabilities.controller';
import { CapabilityOwnerController } from './capabilities/capability-owner.controller';
import { RunsController } from './runs/runs.controller';
import { RunsService } from './runs/runs.service';
import { HitlController } from './hitl/hitl.controller';
import { RunControlController } from './runs/run-control.controller';
import { RunCancelController } from './runs/run-cancel.controller';

@Module({})
export class GatewayModule {
  static forRuntime(runtime: ServiceRuntime, tokens: ApiTokens): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [
        HealthController,
        DashboardController,
        RunsController,
        CapabilitiesController,
        CapabilityOwnerController,
        AdminController,
        HitlController,
        RunControlController,
        RunCancelController,
      ],
      providers: [
        { provide: RUNTIME, useValue: runtime },
        { provide: API_TOKENS, useValue: tokens },
        AuthGuard,
        RunsService,
      ],
    };
  }
}
