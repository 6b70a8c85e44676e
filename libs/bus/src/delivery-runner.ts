import { runIdFromStreamId } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { retryDelayMs, type ParsedConsumeOptions } from './consume-options';
import { describe, isRetryable } from './errors';
import type { BusLogger } from './logger';
import type { Delivery, DeliveryHandler } from './types';

/** What a bus hands the runner for one delivery: the carrier's own primitives, nothing decided yet. */
export interface RawDelivery {
  event: StoredEvent;
  deliveryCount: number;
  ack(): Promise<void>;
  nak(delayMs?: number): void;
  term(): void;
  working(): void;
}

/**
 * The rules every bus applies to one delivery, so both buses behave the same:
 * - types the consumer does not handle are acked unseen;
 * - a delivery past maxDeliver (the last attempt timed out or was nak'ed) is dead-lettered unseen;
 * - the handler may settle the delivery itself; if it resolves without settling, it is acked;
 * - a throw with `retryable: false`, or on the maxDeliver-th attempt, is dead-lettered and termed;
 *   any other throw is nak'ed with exponential backoff.
 * A dead letter is recorded before the term; if recording fails, the delivery is nak'ed instead.
 */
export async function runDelivery(
  raw: RawDelivery,
  options: ParsedConsumeOptions,
  handler: DeliveryHandler,
  logger: BusLogger,
): Promise<void> {
  const delivery = new SettlingDelivery(raw, options, logger);
  if (options.types && !options.types.has(raw.event.type)) return delivery.ackQuietly();
  if (raw.deliveryCount > options.maxDeliver) {
    return delivery.deadLetter(`not acknowledged after ${options.maxDeliver} deliveries`);
  }
  try {
    await handler(delivery);
  } catch (error) {
    return delivery.failed(error);
  }
  return delivery.succeeded();
}

class SettlingDelivery implements Delivery {
  private settled: 'ack' | 'nak' | 'term' | undefined;
  private terminating: Promise<void> | undefined;

  constructor(
    private readonly raw: RawDelivery,
    private readonly options: ParsedConsumeOptions,
    private readonly logger: BusLogger,
  ) {}

  get event(): StoredEvent {
    return this.raw.event;
  }

  get deliveryCount(): number {
    return this.raw.deliveryCount;
  }

  async ack(): Promise<void> {
    if (this.settled) return;
    this.settled = 'ack';
    await this.raw.ack();
  }

  nak(delayMs?: number): void {
    if (this.settled) return;
    this.settled = 'nak';
    this.raw.nak(delayMs);
  }

  term(reason = 'terminated by the handler'): void {
    if (this.settled) return;
    this.settled = 'term';
    this.terminating = this.recordThenTerm(reason);
  }

  working(): void {
    if (!this.settled) this.raw.working();
  }

  async ackQuietly(): Promise<void> {
    try {
      await this.ack();
    } catch (error) {
      this.logger.warn('ack failed; the event will be redelivered', {
        ...this.about(),
        error: describe(error),
      });
    }
  }

  deadLetter(reason: string): Promise<void> {
    this.term(reason);
    return this.terminating ?? Promise.resolve();
  }

  async succeeded(): Promise<void> {
    await this.terminating;
    await this.ackQuietly();
  }

  async failed(error: unknown): Promise<void> {
    await this.terminating;
    if (this.settled) {
      this.logger.warn('handler threw after settling the delivery', {
        ...this.about(),
        error: describe(error),
      });
      return;
    }
    const reason = reasonOf(error);
    if (!isRetryable(error)) return this.deadLetter(reason);
    if (this.raw.deliveryCount >= this.options.maxDeliver) {
      return this.deadLetter(`failed on all ${this.options.maxDeliver} deliveries; last error: ${reason}`);
    }
    const delayMs = retryDelayMs(this.raw.deliveryCount);
    this.logger.warn('handler failed; will retry', { ...this.about(), retryInMs: delayMs, error: reason });
    this.nak(delayMs);
  }

  private async recordThenTerm(reason: string): Promise<void> {
    const { durable, onDeadLetter } = this.options;
    try {
      await onDeadLetter?.({
        consumer: durable,
        event: this.raw.event,
        deliveryCount: this.raw.deliveryCount,
        reason,
      });
    } catch (error) {
      this.logger.error('recording a dead letter failed; redelivering', {
        ...this.about(),
        reason,
        error: describe(error),
      });
      this.raw.nak(retryDelayMs(this.raw.deliveryCount));
      return;
    }
    if (!onDeadLetter)
      this.logger.error('dead letter (no onDeadLetter to record it)', { ...this.about(), reason });
    this.raw.term();
  }

  /** What a line about this delivery says: the event, and its run and trace (see @flex/runtime's logger). */
  private about(): Record<string, unknown> {
    const { id, type, streamId, metadata } = this.raw.event;
    return {
      consumer: this.options.durable,
      eventId: id,
      type,
      streamId,
      runId: runIdFromStreamId(streamId),
      traceparent: metadata?.traceparent,
      deliveryCount: this.raw.deliveryCount,
    };
  }
}

function reasonOf(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const message = describe(error);
  return typeof code === 'string' && code ? `${code}: ${message}` : message;
}
