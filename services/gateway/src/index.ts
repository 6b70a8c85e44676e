export { GatewayModule } from './gateway.module';
export { createGatewayApp } from './http/gateway.app';
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
