import type { EventBus, Messaging } from '@flex/bus';
import type { EventStore, FlexDatabase } from '@flex/event-store';
import type { Clock, IdGenerator } from './clock';
import type { FlexConfig } from './config';
import type { Logger } from './telemetry/log';
import type { FlexMetrics } from './telemetry/metrics';
import type { Readiness } from './readiness';
import type { StreamStateCache } from './stream-state-cache';
import type { RegistrySnapshotCache } from './registry-snapshot-cache';
import type { SecretVault } from './secrets/secret-vault';

/**
 * Everything a service needs from the outside world, built once per process. Embedded mode builds
 * one and shares it between the five services; distributed mode builds one per service process.
 * Only these adapters differ between the two modes (DESIGN §4).
 */
export interface ServiceRuntime {
  readonly mode: 'embedded' | 'distributed';
  /** The service this runtime is for (`gateway`, `planner`…; `flex` for the embedded system). */
  readonly service: string;
  readonly config: FlexConfig;
  readonly database: FlexDatabase;
  readonly store: EventStore;
  readonly bus: EventBus;
  readonly messaging: Messaging;
  readonly prefix: string;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** The states of recently used streams, for `runCommand` to read only what it lacks. */
  readonly streamStates: StreamStateCache;
  /** The registry's snapshot, kept between its change notices (registrations and status only). */
  readonly registrySnapshots: RegistrySnapshotCache;
  readonly logger: Logger;
  /** The process's metrics (OpenTelemetry; Prometheus text at GET /metrics). */
  readonly metrics: FlexMetrics;
  /** Whether the process is ready to take work (`GET /readyz`): startup steps and live checks. */
  readonly readiness: Readiness;
  /** The secret store: sealed values of the secrets envelopes carried (see docs/security/secrets.md). */
  readonly secrets: SecretVault;
  /** Stop background loops and close connections, in order. */
  close(): Promise<void>;
  /** Register something to stop when the runtime closes (closed in reverse order). */
  onClose(fn: () => Promise<void> | void): void;
}

/** Nest injection token for the ServiceRuntime. */
export const RUNTIME = Symbol.for('flex.runtime');
