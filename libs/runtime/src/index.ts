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
export {
  createLogger,
  silentLogger,
  LOG_LEVELS,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  type LogData,
} from './telemetry/log';
export {
  DISPATCH_LOG_NAMES,
  LOG_EVENT_NAMES,
  STORED_EVENT_LOG_NAMES,
  logStoredEvents,
  storedEventFields,
} from './telemetry/log-events';
export { RunLogTap, type RunLogLine } from './telemetry/log-tap';
export { createProcessLog, type ProcessLog } from './telemetry/process-log';
export { nestLogger } from './telemetry/nest-logger';
export { systemClock, randomIds, type Clock, type IdGenerator } from './clock';
export { FlexMetrics, type Increment, type Measurement, type GaugeReading } from './telemetry/metrics';
export { projectionLag } from './telemetry/metrics-lag';
export { FAMILIES, exportedName, type Family } from './telemetry/metrics-families';
export { boundedLabel } from './telemetry/metrics-events';
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
  registrySnapshot,
  keptRegistrySnapshot,
  keepingAlive,
  activeRegistrations,
  type CapabilitySnapshot,
  type CapabilityView,
} from './registry.client';
export { RegistrySnapshotCache, type RegistrySnapshotCacheOptions } from './registry-snapshot-cache';
export { runProcess, startFailure, type RunningProcess } from './process';
export { drainingStop, type WorkIntake } from './shutdown';
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
export {
  runRetentionCycle,
  startRetention,
  archiveStoreFor,
  openArchiveStore,
  type RetentionCycleOptions,
  type RetentionReport,
} from './retention';
export {
  retentionSettings,
  archiveTarget,
  type ArchiveTarget,
  type RetentionSettings,
} from './retention-config';
