import { connect } from 'nats';
import {
  InProcessMessaging,
  natsConnectionOptions,
  NatsEventBus,
  NatsMessaging,
  StoreBackedEventBus,
  type EventBus,
} from '@flex/bus';
import {
  createDatabase,
  createEventLog,
  EventStore,
  migrateToLatest,
  OutboxRelay,
  type StoredEvent,
} from '@flex/event-store';
import { configureEvaluationBudget } from '@flex/logic';
import { sql, type Migration } from 'kysely';
import { randomIds, systemClock } from './clock';
import type { FlexConfig } from './config';
import { createLogger } from './logger';
import { createMetrics } from './metrics';
import { natsAuthOf } from './nats-auth';
import { Readiness } from './readiness';
import { isFlexService, SERVICE_ROLES } from './nats/service-roles';
import type { ServiceRuntime } from './runtime';
import { StreamStateCache } from './stream-state-cache';
import { startTracing, type TracingOptions } from './telemetry/tracing';
import { resolveSecretKey, type SecretKeyHome } from './secrets/secret-key';
import { SecretVault } from './secrets/secret-vault';

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
  const logger = createLogger(config.FLEX_LOG_LEVEL, { service: options.service });
  const tracing = startTracing(config, options.service, { exporter: options.traceExporter });
  const database = await createDatabase({ url: config.FLEX_DATABASE_URL });
  await migrateToLatest(database.db, options.migrations);
  const nc = await connect(
    natsConnectionOptions(config.FLEX_NATS_URL, `flex-${options.service}`, natsAuthOf(config)),
  );
  const bus = await NatsEventBus.connect({ nc, prefix: config.FLEX_NATS_PREFIX });
  const messaging = new NatsMessaging(nc);
  // Runs after an append has committed, so `store` exists by then.
  const publish = async (events: StoredEvent[]) => {
    await bus.publish(events);
    await store.markPublished(events.map((e) => e.position));
  };
  const store = new EventStore(database.db, { outbox: true, afterCommit: publish });
  const relay = new OutboxRelay(database.db, store, publish, {
    intervalMs: 1000,
    minAgeMs: 2000,
    batchSize: 500,
    // A service's NATS identity may publish only its own events: the others are its peers' to relay.
    types: isFlexService(options.service) ? SERVICE_ROLES[options.service].publishes : undefined,
  });
  relay.start();
  const runtime = baseRuntime('distributed', config, options.service, {
    database,
    store,
    bus,
    messaging,
    logger,
    secrets: new SecretVault(database, resolveSecretKey(config, { kind: 'none' })),
  });
  // Registered first, so closed last: the spans of the shutdown itself still go out.
  runtime.onClose(() => tracing.shutdown());
  runtime.readiness.watch('nats', natsCheck(nc));
  runtime.onClose(() => nc.close());
  runtime.onClose(() => database.close());
  runtime.onClose(() => bus.close());
  runtime.onClose(() => messaging.drain());
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
  const logger = createLogger(config.FLEX_LOG_LEVEL, { service: options.service });
  const tracing = startTracing(config, options.service, { exporter: options.traceExporter });
  const dataDir = options.dataDir === null ? undefined : (options.dataDir ?? `${config.FLEX_DATA_DIR}/pg`);
  const database = await createDatabase(
    config.FLEX_DATABASE_URL ? { url: config.FLEX_DATABASE_URL } : { dataDir },
  );
  await migrateToLatest(database.db, options.migrations);
  let bus: EventBus;
  let store: EventStore;
  let messaging;
  let nc: Awaited<ReturnType<typeof connect>> | undefined;
  if (config.FLEX_NATS_URL) {
    nc = await connect(natsConnectionOptions(config.FLEX_NATS_URL, 'flex-embedded', natsAuthOf(config)));
    const natsBus = await NatsEventBus.connect({ nc, prefix: config.FLEX_NATS_PREFIX });
    bus = natsBus;
    messaging = new NatsMessaging(nc);
    store = new EventStore(database.db, { outbox: false, afterCommit: (events) => natsBus.publish(events) });
  } else {
    store = new EventStore(database.db, { outbox: false, afterCommit: (events) => storeBus.publish(events) });
    const storeBus = new StoreBackedEventBus(createEventLog(store, database.db));
    bus = storeBus;
    messaging = new InProcessMessaging();
  }
  const keyHome: SecretKeyHome =
    options.dataDir === null ? { kind: 'memory' } : { kind: 'data_dir', dir: config.FLEX_DATA_DIR };
  const runtime = baseRuntime('embedded', config, options.service, {
    database,
    store,
    bus,
    messaging,
    logger,
    secrets: new SecretVault(database, resolveSecretKey(config, keyHome)),
  });
  // Registered first, so closed last: the spans of the shutdown itself still go out.
  runtime.onClose(() => tracing.shutdown());
  if (nc) runtime.readiness.watch('nats', natsCheck(nc));
  runtime.onClose(() => database.close());
  if (nc) runtime.onClose(() => nc.close());
  runtime.onClose(() => bus.close());
  runtime.onClose(() => messaging.drain());
  return runtime;
}

function baseRuntime(
  mode: ServiceRuntime['mode'],
  config: FlexConfig,
  service: string,
  parts: Pick<ServiceRuntime, 'database' | 'store' | 'bus' | 'messaging' | 'logger' | 'secrets'>,
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
    metrics: createMetrics(),
    readiness,
    onClose: (fn) => closers.push(fn),
    async close() {
      if (closed) return;
      closed = true;
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

/** The NATS connection is open (it reconnects by itself; while it does, the process is not ready). */
function natsCheck(nc: { isClosed(): boolean; isDraining(): boolean }) {
  return async () =>
    nc.isClosed() || nc.isDraining() ? { ok: false, detail: 'NATS connection closed' } : { ok: true };
}
