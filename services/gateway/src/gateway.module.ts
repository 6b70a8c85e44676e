import { Module, type DynamicModule } from '@nestjs/common';
import { HealthController, RUNTIME, type ServiceRuntime } from '@flex/runtime';
import type { ApiTokens } from './auth/api-tokens';
import { API_TOKENS, AuthGuard, CLIENT_LIMITS } from './auth/auth.guard';
import { ClientLimits, tokenLimitsFrom } from './limits/client-limits';
import { AdminController } from './admin/admin.controller';
import { DashboardController } from './dashboard/dashboard.controller';
import { CapabilitiesController } from './capabilities/capabilities.controller';
import { CapabilityOwnerController } from './capabilities/capability-owner.controller';
import { RunsController } from './runs/runs.controller';
import { RunsService } from './runs/runs.service';
import { HitlController } from './hitl/hitl.controller';
import { RunControlController } from './runs/run-control.controller';
import { RunCancelController } from './runs/run-cancel.controller';
import { API_ROUTES, OpenApiController } from './openapi/openapi.controller';
import { routesOf } from './openapi/openapi.document';

/** Every controller of the gateway: what it serves, and what `GET openapi.json` lists. */
const CONTROLLERS = [
  HealthController,
  DashboardController,
  RunsController,
  CapabilitiesController,
  CapabilityOwnerController,
  AdminController,
  HitlController,
  RunControlController,
  RunCancelController,
  OpenApiController,
];

@Module({})
export class GatewayModule {
  static forRuntime(runtime: ServiceRuntime, tokens: ApiTokens): DynamicModule {
    return {
      module: GatewayModule,
      controllers: CONTROLLERS,
      providers: [
        { provide: RUNTIME, useValue: runtime },
        { provide: API_TOKENS, useValue: tokens },
        {
          provide: CLIENT_LIMITS,
          useValue: new ClientLimits(tokenLimitsFrom(runtime.config), () => runtime.clock.now().getTime()),
        },
        { provide: API_ROUTES, useValue: routesOf(CONTROLLERS) },
        AuthGuard,
        RunsService,
      ],
    };
  }
}
