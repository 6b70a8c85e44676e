export { GatewayModule, type GatewayOptions } from './gateway.module';
export { type WhatIfEngine } from './admin/policy-what-if';
export { createGatewayApp } from './http/gateway.app';
export { serveGateway } from './serve-gateway';
export {
  resolveApiTokens,
  parseApiTokens,
  principalId,
  ROLES,
  type ApiTokens,
  type Principal,
  type Role,
} from './auth/api-tokens';
export { toFrame, describe as describeEvent } from './runs/event-frame';
export { gatewayReplayAdapter } from './runs/gateway.replay';
