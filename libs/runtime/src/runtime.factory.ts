import { connect } from 'nats';
import {
  InProcessMessaging,
  natsConnectionOptions,
  NatsEventBus,
  NatsMessaging,
  registrySubjects,
  StoreBackedEventBus,
  type EventBus,
} from '@flex/bus';
import {
  createDatabase,
  createEventLog,
  type EventStore,
  type FlexDatabase,
  migrateToLatest,
  OutboxRelay,
  type StoredEvent,
} from '@flex/event-store';
import { configureEvaluationBudget } from '@flex/logic';
import { sql, type Migration } from 'kysely';
import { randomIds, systemClock } from './clock';
import type { FlexConfig } from './config';
import { natsAuthOf } from './nats-auth';
import { Readiness } from './readiness';
import { isFlexService, SERVICE_ROLES } from './nats/service-roles';
import type { ServiceRuntime } from './runtime';
import { RegistrySnapshotCache } from './registry-snapshot-cache';
import { StreamStateCache } from './stream-state-cache';
import type { Logger } from './telemetry/log';
import { logStoredEvents } from './telemetry/log-events';
import { createProcessLog } from './telemetry/process-log';
import { startTracing, type TracingOptions } from './telemetry/tracing';
import { resolveSecretKey, type SecretKeyHome } from './secrets/secret-key';
import { SecretVault } from './secrets/secret-vault';
import { FlexMetrics } from './telemetry/metrics';
import { metricsSettings } from './telemetry/metrics-config';
import { projectionLag } from './telemetry/metrics-lag';
import { measuredStore } from './telemetry/metrics-store';

export interface RuntimeOptions {
  service: string;
  /** Read-model migrations to run beside the store's own. */
  migrations?: Record<string, Migration>;
  /** Where spans go besides what OTEL_* configures (tests: an in-memory exporter). */
  traceExporter?: TracingOptions['exporter'];
}

/**
 * Distributed mode: Postgres at FLEX_DATABASE_URL, NATS JetStream at FLEX_NATS_URL. Appends are
 * published right after commit; the outbox relay publishes whatever a crash left unpublished.
 */
export async function createDistributedRuntime(
  config: FlexConfig,
  options: RuntimeOptions,
): Promise<ServiceRuntime> {
  if (!config.FLEX_DATABASE_URL || !config.FLEX_NATS_URL) {
    throw new Error('distributed mode needs FLEX_DATABASE_URL and FLEX_NATS_URL');
  }
  const log = createProcessLog(config, options.service);
  const logger = log.logger;
  const tracing = startTracing(config, options.service, { exporter: options.traceExporter });
  const database = await createDatabase({ url: config.FLEX_DATABASE_URL });
  await migrateToLatest(database.db, options.migrations);
  const metrics = createMetrics(config, options.service, database, logger);
  const nc = await connect(
    natsConnectionOptions(config.FLEX_NATS_URL, `flex-${options.service}`, natsAuthOf(config)),
  );
  const bus = await NatsEventBus.connect({
    nc,
    prefix: config.FLEX_NATS_PREFIX,
    replicas: config.FLEX_NATS_STREAM_REPLICAS,
    logger,
  });
  const messaging = new NatsMessaging(nc, { logger });
  // The store (after an append's commit) and the relay (after its claim) remove the outbox rows of
  // what this published: removing them here too was a second DELETE per append.
  const publish = (events: StoredEvent[]) => bus.publish(events);
  const store = measuredStore(database.db, metrics, logger, {
    outbox: true,
    afterCommit: logged(logger, publish),
    logger,
  });
  const relay = new OutboxRelay(database.db, store, publish, {
    intervalMs: 1000,
    minAgeMs: 2000,
    batchSize: 500,
    // A service's NATS identity may publish only its own events: the others are its peers' to relay.
    types: isFlexService(options.service) ? SERVICE_ROLES[options.service].publishes : undefined,
  });
  relay.start();
  const unpublishLogs = log.publishRunLines(messaging, config.FLEX_NATS_PREFIX);
  const runtime = baseRuntime('distributed', config, options.service, {
    database,
    store,
    bus,
    messaging,
    logger,
    metrics,
    secrets: new SecretVault(database, resolveSecretKey(config, { kind: 'none' })),
  });
  // Registered first, so closed last: the spans of the shutdown itself still go out.
  runtime.onClose(() => tracing.shutdown());
  runtime.readiness.watch('nats', natsCheck(nc));
  runtime.onClose(() => nc.close());
  runtime.onClose(() => database.close());
  // Before the database closes: the outbox rows of what was published go now, not with the relay.
  runtime.onClose(() => store.flushPublished());
  runtime.onClose(() => bus.close());
  runtime.onClose(() => messaging.drain());
  runtime.onClose(unpublishLogs);
  runtime.onClose(() => relay.stop());
  return runtime;
}

/**
 * Embedded mode: PGlite under FLEX_DATA_DIR (or in memory), a store-backed in-process bus whose
 * consumers tail the event store from persisted checkpoints, and in-process messaging.
 * FLEX_DATABASE_URL / FLEX_NATS_URL, when set, swap in the real servers.
 */
export async function createEmbeddedRuntime(
  config: FlexConfig,
  options: RuntimeOptions & { dataDir?: string | null },
): Promise<ServiceRuntime> {
  const log = createProcessLog(config, options.service);
  const logger = log.logger;
  const tracing = startTracing(config, options.service, { exporter: options.traceExporter });
  const dataDir = options.dataDir === null ? undefined : (options.dataDir ?? `${config.FLEX_DATA_DIR}/pg`);
  const database = await createDatabase(
    config.FLEX_DATABASE_URL
      ? { url: config.FLEX_DATABASE_URL }
      : { dataDir, pgliteThread: config.FLEX_PGLITE_THREAD },
  );
  await migrateToLatest(database.db, options.migrations);
  const metrics = createMetrics(config, options.service, database, logger);
  let bus: EventBus;
  let store: EventStore;
  let messaging;
  let nc: Awaited<ReturnType<typeof connect>> | undefined;
  if (config.FLEX_NATS_URL) {
    nc = await connect(natsConnectionOptions(config.FLEX_NATS_URL, 'flex-embedded', natsAuthOf(config)));
    const natsBus = await NatsEventBus.connect({
      nc,
      prefix: config.FLEX_NATS_PREFIX,
      replicas: config.FLEX_NATS_STREAM_REPLICAS,
      logger,
    });
    bus = natsBus;
    messaging = new NatsMessaging(nc, { logger });
    store = measuredStore(database.db, metrics, logger, {
      outbox: false,
      afterCommit: logged(logger, (events) => natsBus.publish(events)),
      logger,
    });
  } else {
    store = measuredStore(database.db, metrics, logger, {
      outbox: false,
      afterCommit: logged(logger, (events) => storeBus.publish(events)),
      logger,
      // PGlite: this process is the only one that can open the database.
      soleWriter: !config.FLEX_DATABASE_URL,
    });
    // The bus saves its durables' checkpoints on a beat; a longer one costs only redelivery after a
    // crash (every handler is idempotent), and at 50 ms the beat was two of the twenty statements a run
    // costs PGlite one at a time, each queued before some run's next append (docs/BENCHMARKS.md).
    const storeBus = new StoreBackedEventBus(createEventLog(store, database.db), {
      logger,
      checkpointDelayMs: 250,
    });
    bus = storeBus;
    messaging = new InProcessMessaging({ logger });
  }
  const keyHome: SecretKeyHome =
    options.dataDir === null ? { kind: 'memory' } : { kind: 'data_dir', dir: config.FLEX_DATA_DIR };
  const runtime = baseRuntime('embedded', config, options.service, {
    database,
    store,
    bus,
    messaging,
    logger,
    metrics,
    secrets: new SecretVault(database, resolveSecretKey(config, keyHome)),
  });
  // Registered first, so closed last: the spans of the shutdown itself still go out.
  runtime.onClose(() => tracing.shutdown());
  if (nc) runtime.readiness.watch('nats', natsCheck(nc));
  runtime.onClose(() => database.close());
  if (nc) runtime.onClose(() => nc.close());
  runtime.onClose(() => bus.close());
  runtime.onClose(() => messaging.drain());
  runtime.onClose(log.publishRunLines(messaging, config.FLEX_NATS_PREFIX));
  return runtime;
}

function baseRuntime(
  mode: ServiceRuntime['mode'],
  config: FlexConfig,
  service: string,
  parts: Pick<ServiceRuntime, 'database' | 'store' | 'bus' | 'messaging' | 'logger' | 'metrics' | 'secrets'>,
): ServiceRuntime {
  const closers: Array<() => Promise<void> | void> = [];
  let closed = false;
  // The runtime exists only once the migrations ran (createDatabase, then migrateToLatest).
  const readiness = new Readiness();
  readiness.done('migrations', 'up to date');
  readiness.watch('database', async () => {
    await sql`select 1`.execute(parts.database.db);
    return { ok: true };
  });
  // Rules are evaluated in pure code that cannot read configuration: the budget is set for the process.
  configureEvaluationBudget({
    operations: config.FLEX_LOGIC_MAX_OPERATIONS,
    items: config.FLEX_LOGIC_MAX_ITEMS,
  });
  return {
    mode,
    service,
    config,
    ...parts,
    prefix: config.FLEX_NATS_PREFIX,
    clock: systemClock,
    ids: randomIds,
    // One per store: a cached state is a prefix of a stream of this database only.
    streamStates: new StreamStateCache({ maxEntries: config.FLEX_STREAM_CACHE_ENTRIES }),
    registrySnapshots: new RegistrySnapshotCache({
      maxAgeMs: config.FLEX_REGISTRY_SNAPSHOT_MAX_AGE_MS,
      now: () => systemClock.now().getTime(),
      listen: async (onChanged) => {
        await parts.messaging.subscribe(registrySubjects(config.FLEX_NATS_PREFIX).changed, onChanged);
      },
    }),
    readiness,
    onClose: (fn) => closers.push(fn),
    async close() {
      if (closed) return;
      closed = true;
      // First, while the database still answers the gauges: the last OTLP export.
      await parts.metrics.shutdown().catch((error: unknown) => {
        parts.logger.warn('error while closing metrics', { service, error });
      });
      for (const fn of closers.reverse()) {
        try {
          await fn();
        } catch (error) {
          parts.logger.warn('error while closing', { service, error });
        }
      }
    },
  };
}

/** The process's metrics, projection lag read from its database at each collection. */
function createMetrics(
  config: FlexConfig,
  service: string,
  database: FlexDatabase,
  logger: Logger,
): FlexMetrics {
  const onCollectErrors = (errors: unknown[]) => logger.warn('metrics collected with errors', { errors });
  const metrics = new FlexMetrics({ service, ...metricsSettings(config), onCollectErrors });
  metrics.watchGauges(projectionLag(database.db));
  return metrics;
}

/** After each commit: a log line per event appended here, then the publish (see logStoredEvents). */
function logged(logger: ServiceRuntime['logger'], publish: (events: StoredEvent[]) => Promise<void>) {
  return (events: StoredEvent[]) => {
    logStoredEvents(logger, events);
    return publish(events);
  };
}

/** The NATS connection is open (it reconnects by itself; while it does, the process is not ready). */
function natsCheck(nc: { isClosed(): boolean; isDraining(): boolean }) {
  return async () =>
    nc.isClosed() || nc.isDraining() ? { ok: false, detail: 'NATS connection closed' } : { ok: true };
}
