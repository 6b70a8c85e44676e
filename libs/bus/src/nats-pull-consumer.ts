import { createInbox, nanos, type JsMsg, type Msg, type NatsConnection, type Subscription } from 'nats';
import { toJsMsg } from 'nats/lib/jetstream/jsmsg';
import type { ParsedConsumeOptions } from './consume-options';
import { runDelivery, type RawDelivery } from './delivery-runner';
import { BusClosedError, describe, PullRefusedError } from './errors';
import { decodeEvent } from './event-codec';
import type { BusLogger } from './logger';
import { decodeSubjectToken } from './subjects';
import type { Consumer, DeliveryHandler } from './types';

/**
 * How long one pull request waits on the server for messages before the next one. It bounds how
 * long stop() takes: stop() waits for the server to end the open pull (see there).
 */
const PULL_EXPIRES_MS = 1_000;
/**
 * While running, a pull the server has not said is over this long after it was sent is taken as
 * over, and the next one is sent. nats-server 2.9 drops a request without its 408 when it finds the
 * request expired just as a message is ready for it (a message published, or a nak's delay ending,
 * at that instant); waiting for that word stalled the consumer, and whatever was handed back to it,
 * for PULL_GIVE_UP_MS. A twice-the-expiry margin leaves a late 408 room (about 1.2 s at most seen
 * on a loaded 2-core machine); what a pull taken as over still brings arrives all the same, as the
 * inbox stays subscribed until stop() (see `dispatch` for a message that finds no free slot).
 */
const PULL_OVERDUE_MS = 2 * PULL_EXPIRES_MS;
/**
 * stop() waits longer for the open pull's word: once the inbox is dropped, whatever the server
 * still routed to that pull waits out its ack_wait. A pull the server never ended (its status lost
 * with a dropped connection, or dropped unsaid as above) is given up this long after it was sent.
 */
const PULL_GIVE_UP_MS = PULL_EXPIRES_MS + 15_000;
const RETRY_AFTER_ERROR_MS = 1000;
/** Statuses that end a pull as expected: no messages (404), the request expired (408). */
const PULL_ENDED = new Set([404, 408]);
const HEARTBEAT = 100;

/** Where this instance's share of a durable is pulled from. */
export interface PullSource {
  nc: NatsConnection;
  stream: string;
  durable: string;
}

/** A pull request the server may still route messages to. */
interface OpenPull {
  id: number;
  remaining: number;
  end(error?: Error): void;
}

/**
 * One instance's share of a durable pull consumer. It only ever asks the server for as many
 * messages as it has free slots, so nothing sits in a local buffer while its ack deadline runs:
 * whatever this instance has not taken stays available to the other instances.
 *
 * Pull requests are sent by hand (`$JS.API.CONSUMER.MSG.NEXT`) with a reply subject per request
 * under one inbox subscription that lives as long as the consumer. The client therefore knows
 * when the server is done with a request (its batch was filled, or its 404/408 status came), and
 * nothing the server routes to a request can arrive after the subscription is gone: nats.js's
 * `fetch()` ends a pull by its own clock (1.05 × expires after the call), which on a loaded
 * machine can be before the server's, so a message the server then routed to that pull reached
 * a dropped subscription and waited out its ack_wait. (One exception while running: a pull the
 * server never answers is taken as over after PULL_OVERDUE_MS; the inbox still hears it.)
 */
export class NatsPullConsumer implements Consumer {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly inbox: string;
  private readonly sub: Subscription;
  private readonly nextSubject: string;
  private stopping = false;
  private pulls = 0;
  private open: OpenPull | undefined;
  private wake: (() => void) | undefined;
  private readonly loop: Promise<void>;

  constructor(
    private readonly source: PullSource,
    private readonly options: ParsedConsumeOptions,
    private readonly handler: DeliveryHandler,
    private readonly logger: BusLogger,
  ) {
    const { nc, stream, durable } = source;
    this.nextSubject = `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`;
    this.inbox = createInbox(inboxPrefixOf(nc));
    this.sub = nc.subscribe(`${this.inbox}.*`, { callback: (error, msg) => this.received(error, msg) });
    void this.sub.closed.then(() => this.open?.end(new BusClosedError('NATS subscription')));
    this.loop = this.run();
  }

  /**
   * Stops pulling, waits for the server to end the open pull, then for the deliveries in hand.
   * A pull request cannot be withdrawn: the server may route a message to it until it has said the
   * request is over (its batch filled, or expired: PULL_EXPIRES_MS at most). Whatever it still
   * brings is handed back (nak) for another instance to take once this pull is over. Only then is
   * the inbox dropped, so no message is ever routed to a subscription that is gone.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.closed()) this.open?.end();
    this.wake?.();
    await this.loop;
    if (!this.closed()) this.sub.unsubscribe();
    await Promise.all(this.inFlight);
    // The server has the unsubscribe, and every ack and nak sent, before stop() returns.
    if (!this.closed()) await this.source.nc.flush().catch(() => undefined);
  }

  private closed(): boolean {
    return this.source.nc.isClosed();
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      await this.freeSlot();
      if (this.stopping) return;
      try {
        await this.pull(this.options.concurrency - this.inFlight.size);
      } catch (error) {
        if (this.closed()) {
          if (!this.stopping)
            this.logger.error('connection closed; consumer stopped', { consumer: this.options.durable });
          return;
        }
        this.logger.warn('pulling messages failed; retrying', {
          consumer: this.options.durable,
          error: describe(error),
        });
        if (!this.stopping) await this.pause(RETRY_AFTER_ERROR_MS);
      }
    }
  }

  /** One pull request for up to `batch` messages; settles when the server is done with it. */
  private pull(batch: number): Promise<void> {
    const id = ++this.pulls;
    return new Promise<void>((resolve, reject) => {
      const giveUp = setTimeout(() => pull.end(), PULL_GIVE_UP_MS);
      const overdue = setTimeout(() => this.stopping || pull.end(), PULL_OVERDUE_MS);
      const pull: OpenPull = {
        id,
        remaining: batch,
        end: (error) => {
          if (this.open !== pull) return;
          clearTimeout(giveUp);
          clearTimeout(overdue);
          this.open = undefined;
          if (error) reject(error);
          else resolve();
        },
      };
      this.open = pull;
      try {
        const request = JSON.stringify({ batch, expires: nanos(PULL_EXPIRES_MS) });
        this.source.nc.publish(this.nextSubject, request, { reply: `${this.inbox}.${id}` });
      } catch (error) {
        pull.end(error as Error);
      }
    });
  }

  /**
   * A message for this consumer's pull requests: a status about one request (sent to that
   * request's own reply subject), or a stored event (under its own subject; counted against the
   * open request, as the server fills one request at a time).
   */
  private received(error: Error | null, msg: Msg): void {
    if (error) return this.open?.end(error);
    const status = msg.reply ? undefined : msg.headers?.code;
    if (status !== undefined) {
      if (status === HEARTBEAT || msg.subject !== `${this.inbox}.${this.open?.id}`) return;
      const description = msg.headers?.description ?? '';
      return this.open?.end(PULL_ENDED.has(status) ? undefined : new PullRefusedError(status, description));
    }
    if (this.open && --this.open.remaining <= 0) this.open.end();
    try {
      this.dispatch(toJsMsg(msg));
    } catch (error) {
      // An ack or nak sent as the connection closed: the message is redelivered after ack_wait.
      this.logger.warn('settling a message failed', {
        consumer: this.options.durable,
        error: describe(error),
      });
    }
  }

  private dispatch(msg: JsMsg): void {
    // Pulled just as we stopped, or brought by a pull taken as over (PULL_OVERDUE_MS) after its
    // slot went to the next pull's: hand it back for another instance, or for this one once a slot
    // is free. Not for at once: the server would route it straight back to the pull still open
    // here, each time one delivery more, until none were left. Once the delay is over, that pull
    // has expired.
    if (this.stopping || this.inFlight.size >= this.options.concurrency) return msg.nak(PULL_EXPIRES_MS);
    // A type it does not handle (a durable on every type, where the server cannot filter several):
    // acked unseen, its body never parsed.
    const { types } = this.options;
    if (types && !types.has(typeOfSubject(msg.subject) ?? '')) return msg.ack();
    let raw: RawDelivery;
    try {
      raw = toRawDelivery(msg, () => this.closed());
    } catch (error) {
      this.logger.error('terminating a message that is not a stored event', {
        subject: msg.subject,
        error: describe(error),
      });
      return msg.term();
    }
    const done = runDelivery(raw, this.options, this.handler, this.logger)
      .catch((error: unknown) =>
        this.logger.error('delivery failed unexpectedly', {
          consumer: this.options.durable,
          error: describe(error),
        }),
      )
      .finally(() => {
        this.inFlight.delete(done);
        this.wake?.();
      });
    this.inFlight.add(done);
  }

  private async freeSlot(): Promise<void> {
    while (!this.stopping && this.inFlight.size >= this.options.concurrency) {
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** The type an event's subject names (`<prefix>.events.<stream>.<type>`); undefined if unreadable. */
function typeOfSubject(subject: string): string | undefined {
  try {
    return decodeSubjectToken(subject.slice(subject.lastIndexOf('.') + 1));
  } catch {
    return undefined;
  }
}

/** The connection's inbox prefix (per identity where NATS permissions pin inboxes; see nats-connection). */
function inboxPrefixOf(nc: NatsConnection): string | undefined {
  return (nc as NatsConnection & { options?: { inboxPrefix?: string } }).options?.inboxPrefix;
}

function toRawDelivery(msg: JsMsg, connectionClosed: () => boolean): RawDelivery {
  return {
    event: decodeEvent(msg.subject, msg.data),
    deliveryCount: msg.info.deliveryCount,
    ack: async () => {
      // The ack would only wait out its timeout: say at once that it cannot be done.
      if (connectionClosed()) throw new BusClosedError('NATS connection');
      // Not ackAck: a lost ack only means a redelivery, which handlers take idempotently (by key),
      // and waiting for the server's reply cost a message and a wake-up per delivery.
      msg.ack();
    },
    nak: (delayMs) => msg.nak(delayMs),
    term: () => msg.term(),
    working: () => msg.working(),
  };
}
