import type { StoredEvent } from '@flex/event-store';
import {
  AckPolicy,
  connect,
  DeliverPolicy,
  headers as natsHeaders,
  nanos,
  StorageType,
  type ConsumerConfig,
  type JetStreamClient,
  type JetStreamManager,
  type NatsConnection,
  type StreamConfig,
  type Subscription,
} from 'nats';
import { parseConsumeOptions, type ParsedConsumeOptions } from './consume-options';
import { consumerFilter, supportsMultipleFilters } from './consumer-filter';
import { BusClosedError, describe, InvalidBusOptionsError, PublishFailedError } from './errors';
import { decodeEvent, encodeEvent } from './event-codec';
import { busFallbackLogger, type BusLogger } from './logger';
import { natsConnectionOptions, type NatsAuthOptions } from './nats-connection';
import { NatsPullConsumer } from './nats-pull-consumer';
import { inPublishSpan } from './publish-span';
import {
  assertSubjectPrefix,
  eventStreamName,
  eventSubject,
  eventsWildcard,
  streamEventsWildcard,
} from './subjects';
import type { ConsumeOptions, Consumer, DeliveryHandler, EventBus } from './types';

export interface NatsEventBusOptions {
  /** Connect to this server (the bus then owns, and on close drains, the connection)... */
  url?: string;
  /** ...or use this connection (the caller keeps owning it). */
  nc?: NatsConnection;
  /** How to authenticate when connecting to `url`. */
  auth?: NatsAuthOptions;
  /** Subject prefix, e.g. `flex`: events go to `<prefix>.events.<stream>.<type>`. */
  prefix: string;
  /** Defaults to the prefix in upper case with `_EVENTS` (e.g. `FLEX_EVENTS`). */
  streamName?: string;
  /** How long JetStream remembers a Nats-Msg-Id to drop a republished event. Default 2 minutes. */
  duplicateWindowMs?: number;
  /**
   * Copies of the stream JetStream keeps (1 to 5; default 1). More than 1 needs a JetStream cluster
   * of at least that many servers. An existing stream with another count is changed to this one.
   */
  replicas?: number;
  logger?: BusLogger;
}

const DEFAULT_DUPLICATE_WINDOW_MS = 120_000;
const STREAM_NOT_FOUND = 10059;
const CONSUMER_ALREADY_EXISTS = [10013, 10148];

/**
 * The bus over NATS JetStream: one file-backed stream captures `<prefix>.events.>`; each event is
 * published with Nats-Msg-Id = event id; consumers are durable pull consumers shared by every
 * instance that uses the same durable name.
 */
export class NatsEventBus implements EventBus {
  private readonly consumers = new Set<NatsPullConsumer>();
  private readonly watchers = new Set<Subscription>();
  private closed = false;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly ownsConnection: boolean,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    readonly prefix: string,
    readonly streamName: string,
    private readonly logger: BusLogger,
  ) {}

  static async connect(options: NatsEventBusOptions): Promise<NatsEventBus> {
    const prefix = assertSubjectPrefix(options.prefix);
    const streamName = options.streamName ?? eventStreamName(prefix);
    if (!/^[A-Za-z0-9_-]+$/.test(streamName))
      throw new InvalidBusOptionsError(`stream name "${streamName}" must be made of [A-Za-z0-9_-]`);
    const duplicateWindowMs = options.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS;
    if (!(duplicateWindowMs > 0)) throw new InvalidBusOptionsError('duplicateWindowMs must be positive');
    const replicas = options.replicas ?? 1;
    if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5)
      throw new InvalidBusOptionsError(`replicas must be an integer from 1 to 5, not ${replicas}`);
    if (!options.nc === !options.url) throw new InvalidBusOptionsError('give exactly one of url and nc');
    const nc =
      options.nc ?? (await connect(natsConnectionOptions(options.url ?? '', 'flex-bus', options.auth)));
    try {
      const jsm = await nc.jetstreamManager();
      await ensureStream(jsm, {
        name: streamName,
        subjects: [eventsWildcard(prefix)],
        duplicate_window: nanos(duplicateWindowMs),
        num_replicas: replicas,
      });
      return new NatsEventBus(
        nc,
        !options.nc,
        nc.jetstream(),
        jsm,
        prefix,
        streamName,
        options.logger ?? busFallbackLogger,
      );
    } catch (error) {
      if (!options.nc) await nc.close();
      throw error;
    }
  }

  async publish(events: readonly StoredEvent[]): Promise<void> {
    this.assertOpen();
    await Promise.all(
      events.map(async (event) => {
        const subject = eventSubject(this.prefix, event.streamId, event.type);
        await inPublishSpan(event, subject, async (traceparent) => {
          try {
            await this.js.publish(subject, encodeEvent(event), {
              msgID: event.id,
              headers: traceHeaders(traceparent),
            });
          } catch (cause) {
            throw new PublishFailedError(event.id, { cause });
          }
        });
      }),
    );
  }

  async consume(options: ConsumeOptions, handler: DeliveryHandler): Promise<Consumer> {
    this.assertOpen();
    const parsed = parseConsumeOptions(options);
    await this.ensureConsumer(parsed);
    const source = { nc: this.nc, stream: this.streamName, durable: parsed.durable };
    const consumer = new NatsPullConsumer(source, parsed, handler, this.logger);
    this.consumers.add(consumer);
    return {
      stop: async () => {
        this.consumers.delete(consumer);
        await consumer.stop();
      },
    };
  }

  /** A core subscription: JetStream-published messages reach core subscribers too. */
  async watch(streamId: string, onEvent: (event: StoredEvent) => void): Promise<() => void> {
    this.assertOpen();
    const subject = streamEventsWildcard(this.prefix, streamId);
    const sub = this.nc.subscribe(subject, {
      callback: (error, msg) => {
        if (error) return this.logger.warn('watch subscription failed', { streamId, error: describe(error) });
        try {
          onEvent(decodeEvent(msg.subject, msg.data));
        } catch (err) {
          this.logger.warn('watch callback failed', { streamId, error: describe(err) });
        }
      },
    });
    this.watchers.add(sub);
    await this.nc.flush(); // the server knows the interest before we return
    return () => {
      this.watchers.delete(sub);
      sub.unsubscribe();
    };
  }

  /** Stops every consumer (waiting for their deliveries), drops watchers, drains an owned connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.consumers].map((c) => c.stop()));
    this.consumers.clear();
    for (const sub of this.watchers) sub.unsubscribe();
    this.watchers.clear();
    if (this.ownsConnection && !this.nc.isClosed()) await this.nc.drain();
  }

  /**
   * The server gets max_deliver one above ours: a delivery past ours (last attempt timed out or
   * was nak'ed) then still reaches us, and we dead-letter it instead of JetStream dropping it.
   * The filter is narrowed to the handled types (see {@link consumerFilter}); an existing durable
   * is updated in place, which keeps its delivered position and its unacked deliveries: events of
   * the handled types past that position still match, and pending ones are redelivered.
   */
  private async ensureConsumer(options: ParsedConsumeOptions): Promise<void> {
    const filter = consumerFilter(this.prefix, options.types, supportsMultipleFilters(this.nc.info?.version));
    const config: Partial<ConsumerConfig> = {
      durable_name: options.durable,
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(options.ackWaitMs),
      max_deliver: options.maxDeliver + 1,
      ...definedOnly(filter),
      deliver_policy: DeliverPolicy.All,
    };
    try {
      await this.jsm.consumers.add(this.streamName, config);
    } catch (error) {
      if (!CONSUMER_ALREADY_EXISTS.includes(apiErrorCode(error) ?? 0)) throw error;
      // update() merges into the existing config: the filter we do not use is set to undefined,
      // which the request leaves out, so the server never sees both.
      await this.jsm.consumers.update(this.streamName, options.durable, {
        ack_wait: config.ack_wait,
        max_deliver: config.max_deliver,
        ...filter,
      });
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new BusClosedError('NatsEventBus');
  }
}

/** Creates the stream, or adds what an existing one lacks without touching the rest of its config. */
async function ensureStream(
  jsm: JetStreamManager,
  wanted: Pick<StreamConfig, 'name' | 'subjects' | 'duplicate_window' | 'num_replicas'>,
): Promise<void> {
  let existing: StreamConfig;
  try {
    existing = (await jsm.streams.info(wanted.name)).config;
  } catch (error) {
    if (apiErrorCode(error) !== STREAM_NOT_FOUND) throw error;
    await withReplicasNamed(wanted, jsm.streams.add({ ...wanted, storage: StorageType.File }));
    return;
  }
  const missing = wanted.subjects.filter((s) => !existing.subjects?.includes(s));
  if (
    missing.length > 0 ||
    existing.duplicate_window !== wanted.duplicate_window ||
    existing.num_replicas !== wanted.num_replicas
  ) {
    const update = jsm.streams.update(wanted.name, {
      subjects: [...(existing.subjects ?? []), ...missing],
      duplicate_window: wanted.duplicate_window,
      num_replicas: wanted.num_replicas,
    });
    await withReplicasNamed(wanted, update);
  }
}

/** A stream the server refuses with more than one replica (no cluster, too few servers): say how many were asked. */
async function withReplicasNamed(
  wanted: Pick<StreamConfig, 'name' | 'num_replicas'>,
  request: Promise<unknown>,
) {
  try {
    await request;
  } catch (error) {
    if (wanted.num_replicas <= 1) throw error;
    throw new InvalidBusOptionsError(
      `stream ${wanted.name} with ${wanted.num_replicas} replicas: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function apiErrorCode(error: unknown): number | undefined {
  return (error as { api_error?: { err_code?: number } } | undefined)?.api_error?.err_code;
}

/** The W3C `traceparent` header of an event's message (none when its run has no trace). */
function traceHeaders(traceparent: string | undefined) {
  if (!traceparent) return undefined;
  const h = natsHeaders();
  h.set('traceparent', traceparent);
  return h;
}
