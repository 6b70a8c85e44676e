import type { Consumer as JsConsumer, ConsumerMessages, JsMsg } from 'nats';
import type { ParsedConsumeOptions } from './consume-options';
import { runDelivery, type RawDelivery } from './delivery-runner';
import { BusClosedError, describe } from './errors';
import { decodeEvent } from './event-codec';
import type { BusLogger } from './logger';
import type { Consumer, DeliveryHandler } from './types';

/**
 * How long one pull request waits on the server for messages before the next one. It bounds how
 * long stop() takes: stop() lets the open pull run out rather than dropping it (see there).
 */
const FETCH_EXPIRES_MS = 1_000;
const RETRY_AFTER_ERROR_MS = 1000;

/**
 * One instance's share of a durable pull consumer. It only ever asks the server for as many
 * messages as it has free slots, so nothing sits in a local buffer while its ack deadline runs:
 * whatever this instance has not taken stays available to the other instances.
 */
export class NatsPullConsumer implements Consumer {
  private readonly inFlight = new Set<Promise<void>>();
  private stopping = false;
  private batch: ConsumerMessages | undefined;
  private wake: (() => void) | undefined;
  private readonly loop: Promise<void>;

  constructor(
    private readonly consumer: JsConsumer,
    private readonly options: ParsedConsumeOptions,
    private readonly handler: DeliveryHandler,
    private readonly logger: BusLogger,
    private readonly connectionClosed: () => boolean,
    /** Round trip to the server: once it returns, the server has seen everything sent before it. */
    private readonly flush: () => Promise<void> = async () => undefined,
  ) {
    this.loop = this.run();
  }

  /**
   * Stops pulling, then waits for the deliveries in hand to finish. The pull request already sent
   * stays open on the server until it expires, and the server may route a message to it at any
   * moment: dropping the subscription then would leave that message in a dead inbox until its
   * ack_wait ran out. So the open pull is left to run out (FETCH_EXPIRES_MS at most), and whatever
   * it still brings is handed straight back (nak) for another instance to take now. Once the pull
   * has ended and the unsubscribe is flushed, the server routes nothing more to it: it skips a
   * waiting pull whose inbox has no interest (nats-server 2.9.10 checked; see
   * `hands back at once what its open pull takes` in the spec for the nak).
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.connectionClosed()) this.batch?.stop();
    this.wake?.();
    await this.loop;
    if (!this.connectionClosed()) await this.flush().catch(() => undefined);
    await Promise.all(this.inFlight);
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      await this.freeSlot();
      if (this.stopping) return;
      try {
        const batch = await this.consumer.fetch({
          max_messages: this.options.concurrency - this.inFlight.size,
          expires: FETCH_EXPIRES_MS,
        });
        this.batch = batch;
        for await (const msg of batch) this.dispatch(msg);
      } catch (error) {
        if (this.stopping) return;
        if (this.connectionClosed()) {
          this.logger.error('connection closed; consumer stopped', { consumer: this.options.durable });
          return;
        }
        this.logger.warn('pulling messages failed; retrying', {
          consumer: this.options.durable,
          error: describe(error),
        });
        await this.pause(RETRY_AFTER_ERROR_MS);
      } finally {
        this.batch = undefined;
      }
    }
  }

  private dispatch(msg: JsMsg): void {
    // Pulled just as we stopped: hand it straight back so another instance takes it now.
    if (this.stopping) return msg.nak();
    let raw: RawDelivery;
    try {
      raw = toRawDelivery(msg, this.connectionClosed);
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

function toRawDelivery(msg: JsMsg, connectionClosed: () => boolean): RawDelivery {
  return {
    event: decodeEvent(msg.subject, msg.data),
    deliveryCount: msg.info.deliveryCount,
    ack: async () => {
      // The ack would only wait out its timeout: say at once that it cannot be done.
      if (connectionClosed()) throw new BusClosedError('NATS connection');
      await msg.ackAck();
    },
    nak: (delayMs) => msg.nak(delayMs),
    term: () => msg.term(),
    working: () => msg.working(),
  };
}
