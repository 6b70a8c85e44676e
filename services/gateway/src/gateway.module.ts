import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { HealthController, RUNTIME, type ServiceRuntime } from '@flex/runtime';
import type { ApiTokens } from './auth/api-tokens';
import { API_TOKENS, AuthGuard, CLIENT_LIMITS } from './auth/auth.guard';
import { ClientLimits, tokenLimitsFrom } from './limits/client-limits';
import { AdminController } from './admin/admin.controller';
import { PolicyWhatIfController } from './admin/policy-what-if.controller';
import { WHAT_IF_ENGINE, type WhatIfEngine } from './admin/policy-what-if';
import { DASHBOARD_ASSETS, DashboardController } from './dashboard/dashboard.controller';
import { loadDashboardAssets } from './dashboard/dashboard-assets';
import { CapabilitiesController } from './capabilities/capabilities.controller';
import { CapabilityOwnerController } from './capabilities/capability-owner.controller';
import { RunsController } from './runs/runs.controller';
import { RunsService } from './runs/runs.service';
import { HitlController } from './hitl/hitl.controller';
import { RunControlController } from './runs/run-control.controller';
import { RunCancelController } from './runs/run-cancel.controller';
import { RunAuditController } from './runs/run-audit.controller';
import { API_ROUTES, OpenApiController } from './openapi/openapi.controller';
import { routesOf } from './openapi/openapi.document';
import { EnvelopeBuilder } from './sandbox/envelope-builder';
import { SandboxController } from './sandbox/sandbox.controller';

/** Every controller of the gateway: what it serves, and what `GET openapi.json` lists. */
const CONTROLLERS: Type[] = [
  HealthController,
  DashboardController,
  RunsController,
  CapabilitiesController,
  CapabilityOwnerController,
  AdminController,
  PolicyWhatIfController,
  HitlController,
  RunControlController,
  RunCancelController,
  RunAuditController,
  OpenApiController,
];

/** What the process that hosts the gateway may give it besides its runtime. */
export interface GatewayOptions {
  whatIf?: WhatIfEngine;
}

@Module({})
export class GatewayModule {
  /** `options.whatIf`: the decide functions policy what-if re-decides with (the app has them; a lone gateway not). */
  static forRuntime(runtime: ServiceRuntime, tokens: ApiTokens, options: GatewayOptions = {}): DynamicModule {
    // The developer sandbox exists only when asked for (FLEX_DEV_SANDBOX): its routes, in the document too.
    const controllers = runtime.config.FLEX_DEV_SANDBOX ? [...CONTROLLERS, SandboxController] : CONTROLLERS;
    return {
      module: GatewayModule,
      controllers,
      providers: [
        { provide: RUNTIME, useValue: runtime },
        { provide: API_TOKENS, useValue: tokens },
        {
          provide: CLIENT_LIMITS,
          useValue: new ClientLimits(tokenLimitsFrom(runtime.config), () => runtime.clock.now().getTime()),
        },
        { provide: API_ROUTES, useValue: routesOf(controllers) },
        { provide: DASHBOARD_ASSETS, useValue: loadDashboardAssets() },
        ...(options.whatIf ? [{ provide: WHAT_IF_ENGINE, useValue: options.whatIf }] : []),
        AuthGuard,
        RunsService,
        EnvelopeBuilder,
      ],
    };
  }
}
