import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import { withTraceparent } from '@flex/tracing';
import { FlexEventContext } from './flex-event.context';
import type { ConsumeOptions, Consumer, Delivery, EventBus } from './types';

/** `transportId` of FlexEventsTransport: `@EventPattern(type, FLEX_EVENTS_TRANSPORT)` pins a handler to it. */
export const FLEX_EVENTS_TRANSPORT = Symbol.for('flex.events');

export interface FlexEventsTransportOptions extends Pick<
  ConsumeOptions,
  'durable' | 'concurrency' | 'maxDeliver' | 'ackWaitMs' | 'onDeadLetter'
> {
  /** Used, not owned: closing the transport stops its consumer, not the bus. */
  bus: EventBus;
}

/**
 * Nest's side of the bus: on listen, one durable consumer whose types are the registered
 * `@EventPattern(type)` patterns. Each delivery's StoredEvent is the handler's data and a
 * FlexEventContext (with the Delivery) its context. A handler that resolves acks the delivery;
 * one that throws goes through the bus's retry and dead-letter rules (register FlexEventErrorFilter
 * so the thrown error, not Nest's generic one, reaches them).
 */
export class FlexEventsTransport extends Server implements CustomTransportStrategy {
  override readonly transportId = FLEX_EVENTS_TRANSPORT;
  private consumer: Consumer | undefined;
  private warnedAboutFilter = false;

  constructor(private readonly options: FlexEventsTransportOptions) {
    super();
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      const { bus, ...consume } = this.options;
      this.consumer = await bus.consume({ ...consume, types: this.eventTypes() }, (delivery) =>
        this.dispatch(delivery),
      );
      this._status$.next('listening');
      callback();
    } catch (error) {
      callback(error);
    }
  }

  /** Stops taking deliveries and waits for the handlers in flight. */
  async close(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer?.stop();
    this._status$.next('closed');
  }

  on(): never {
    throw new Error('FlexEventsTransport emits no events; failures are logged by the bus');
  }

  unwrap<T>(): T {
    return this.options.bus as T;
  }

  private eventTypes(): string[] {
    const types: string[] = [];
    for (const [pattern, handler] of this.messageHandlers) {
      if (handler.isEventHandler) types.push(pattern);
      else
        this.logger.warn(`@MessagePattern(${pattern}) is ignored: FlexEventsTransport carries events only`);
    }
    return types;
  }

  private async dispatch(delivery: Delivery): Promise<void> {
    const handler = this.messageHandlers.get(delivery.event.type);
    if (!handler) return; // not one of our types: the bus acks it
    // The handler works in the event's run's trace: its spans, appends and publishes join it.
    const result: unknown = await withTraceparent(delivery.event.metadata.traceparent, () =>
      handler(delivery.event, new FlexEventContext(delivery)),
    );
    if (!isObservable(result)) return;
    try {
      await lastValueFrom(result, { defaultValue: undefined });
    } catch (error) {
      this.warnIfGeneric(error);
      throw error;
    }
  }

  private warnIfGeneric(error: unknown): void {
    const e = error as { status?: unknown; message?: unknown } | null;
    if (this.warnedAboutFilter || e instanceof Error || e?.status !== 'error') return;
    this.warnedAboutFilter = true;
    this.logger.warn(
      "an event handler failed with Nest's generic RPC error: register FlexEventErrorFilter (useGlobalFilters) to keep error codes and retryable flags",
    );
  }
}
