export {
  loadConfig,
  loadTracingConfig,
  type TracingConfig,
  ConfigError,
  bindHost,
  secretKeyPattern,
  type FlexConfig,
} from './config';
export { Readiness, type CheckResult, type ReadinessReport } from './readiness';
export { SecretVault, SecretStoreUnavailableError, SecretUnavailableError } from './secrets/secret-vault';
export { SecretCipher, parseSecretKey, generateSecretKey } from './secrets/secret-cipher';
export { resolveSecretKey, type SecretKeyHome } from './secrets/secret-key';
export { createLogger, type Logger, type LogLevel } from './logger';
export { systemClock, randomIds, type Clock, type IdGenerator } from './clock';
export { createMetrics, type Metrics } from './metrics';
export { RUNTIME, type ServiceRuntime } from './runtime';
export { createDistributedRuntime, createEmbeddedRuntime, type RuntimeOptions } from './runtime.factory';
export { runCommand, type CommandOptions, type CommandResult } from './command';
export { loadState } from './load-state';
export {
  StreamStateCache,
  deepFreeze,
  type CachedState,
  type StreamStateCacheOptions,
} from './stream-state-cache';
export { HealthController } from './health.controller';
export { ApiDoc, API_DOC_KEY, type ApiDocInput } from './api-doc';
export { startDistributedService, eventsTransport, type ServiceDefinition } from './bootstrap';
export {
  fetchCapabilitySnapshot,
  activeRegistrations,
  type CapabilitySnapshot,
  type CapabilityView,
} from './registry.client';
export { runProcess, startFailure } from './process';
export {
  DEAD_LETTERED,
  decideDeadLetterFailure,
  evolveRunEnding,
  failRunOfDeadLetter,
  initialRunEnding,
  type RunEnding,
} from './dead-letter';
export { natsAuthOf } from './nats-auth';
export {
  FLEX_SERVICES,
  SERVICE_ROLES,
  isFlexService,
  type FlexService,
  type RegistryRequest,
  type ServiceRole,
} from './nats/service-roles';
export {
  permissionsFor,
  type NatsLayout,
  type NatsPermissions,
  type NatsRole,
} from './nats/nats-permissions';
export {
  NatsTableSchema,
  parseNatsTable,
  type NatsIdentity,
  type NatsSecret,
  type NatsTable,
  type NatsTableInput,
} from './nats/nats-table';
export { FLEX_ACCOUNT, renderNatsServerConfig, roleOf } from './nats/nats-server-config';
export { startTracing, serviceName, type Tracing, type TracingOptions } from './telemetry/tracing';
