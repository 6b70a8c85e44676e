import 'reflect-metadata';
import type { StoredEvent } from '@flex/event-store';
import { natsTestUrl, testPrefix } from '@flex/testing';
import { Controller, Inject, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { connect, type NatsConnection } from 'nats';
import { FlexEventContext } from './flex-event.context';
import { FlexEventErrorFilter } from './flex-event-error.filter';
import { FlexEventsTransport } from './flex-events.transport';
import { NatsEventBus } from './nats-event-bus';
import { storedEvent, type TestEventInput } from './test-support/memory-event-log';
import { RecordingLogger } from './test-support/recording-logger';
import { waitFor } from './test-support/wait-for';
import type { DeadLetter } from './types';

const RECORDER = Symbol('recorder');

interface Recorder {
  handled: Array<{ type: string; deliveryCount: number; event: StoredEvent; hadWorking: boolean }>;
}

@Controller()
class PlannerController {
  constructor(@Inject(RECORDER) private readonly recorder: Recorder) {}

  @EventPattern('plan_requested')
  async onPlanRequested(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    const delivery = ctx.getDelivery();
    delivery.working(); // long work would keep calling this
    this.record(event, ctx);
  }

  @EventPattern('flaky')
  async onFlaky(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    this.record(event, ctx);
    if (ctx.getDelivery().deliveryCount < 2)
      throw Object.assign(new Error('database busy'), { code: 'DB_BUSY' });
  }

  @EventPattern('poison')
  async onPoison(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    this.record(event, ctx);
    throw Object.assign(new Error('payload breaks the contract'), {
      code: 'INVALID_EVENT',
      retryable: false,
    });
  }

  private record(event: StoredEvent, ctx: FlexEventContext): void {
    const delivery = ctx.getDelivery();
    this.recorder.handled.push({
      type: event.type,
      deliveryCount: delivery.deliveryCount,
      event,
      hadWorking: typeof delivery.working === 'function',
    });
  }
}

/** A fresh module class per app, so each app gets its own recorder. */
function plannerModule(recorder: Recorder) {
  @Module({ controllers: [PlannerController], providers: [{ provide: RECORDER, useValue: recorder }] })
  class PlannerModule {}
  return PlannerModule;
}

describe('FlexEventsTransport in a Nest microservice on NATS', () => {
  let nc: NatsConnection;
  let bus: NatsEventBus;
  let position = 0;
  const emit = async (inputs: TestEventInput[]) => {
    const events = inputs.map((input) => storedEvent(++position, input));
    await bus.publish(events);
    return events;
  };

  beforeAll(async () => (nc = await connect({ servers: natsTestUrl() })));
  afterAll(() => nc.close());
  // A stream per test: a new durable starts from the stream's first event.
  beforeEach(
    async () =>
      (bus = await NatsEventBus.connect({
        nc,
        prefix: testPrefix('transport'),
        logger: new RecordingLogger(),
      })),
  );
  afterEach(async () => {
    await bus.close();
    await (await nc.jetstreamManager()).streams.delete(bus.streamName);
  });

  async function start(durable: string, withFilter: boolean) {
    const recorder: Recorder = { handled: [] };
    const dead: DeadLetter[] = [];
    const transport = new FlexEventsTransport({
      bus,
      durable,
      maxDeliver: 3,
      ackWaitMs: 5000,
      concurrency: 4,
      onDeadLetter: async (l) => void dead.push(l),
    });
    const app: INestMicroservice = await NestFactory.createMicroservice(plannerModule(recorder), {
      strategy: transport,
      logger: false,
    });
    if (withFilter) app.useGlobalFilters(new FlexEventErrorFilter());
    await app.listen();
    return {
      app,
      recorder,
      dead,
      settled: async () => {
        const info = await (await nc.jetstreamManager()).consumers.info(bus.streamName, durable);
        return info.num_pending === 0 && info.num_ack_pending === 0;
      },
    };
  }

  it('hands each @EventPattern handler its StoredEvent and delivery, acking when it resolves', async () => {
    const { app, recorder, settled } = await start('planner', true);
    const [planRequested] = await emit([
      { type: 'plan_requested', streamId: 'run.7' },
      { type: 'nobody_handles_this' },
    ]);
    await waitFor('handled', () => recorder.handled.length === 1);
    await waitFor('both acked', settled);
    expect(recorder.handled).toEqual([
      { type: 'plan_requested', deliveryCount: 1, event: planRequested, hadWorking: true },
    ]);
    await app.close();
  });

  it('retries a retryable throw and dead-letters a non-retryable one at once', async () => {
    const { app, recorder, dead, settled } = await start('retrying', true);
    const [flaky, poison] = await emit([{ type: 'flaky' }, { type: 'poison' }]);
    await waitFor('flaky retried', () => recorder.handled.filter((h) => h.type === 'flaky').length === 2);
    await waitFor('poison dead-lettered', () => dead.length === 1);
    await waitFor('all settled', settled);
    expect(recorder.handled.filter((h) => h.event.id === flaky.id).map((h) => h.deliveryCount)).toEqual([
      1, 2,
    ]);
    expect(recorder.handled.filter((h) => h.event.id === poison.id)).toHaveLength(1);
    expect(dead[0]).toMatchObject({
      consumer: 'retrying',
      deliveryCount: 1,
      reason: 'INVALID_EVENT: payload breaks the contract',
      event: { id: poison.id },
    });
    await app.close();
  });

  it("without FlexEventErrorFilter still retries, then dead-letters with Nest's generic error", async () => {
    const { app, recorder, dead, settled } = await start('unfiltered', false);
    const [poison] = await emit([{ type: 'poison' }]);
    await waitFor('dead-lettered after maxDeliver', () => dead.length === 1);
    await waitFor('settled', settled);
    expect(recorder.handled.filter((h) => h.event.id === poison.id).map((h) => h.deliveryCount)).toEqual([
      1, 2, 3,
    ]);
    expect(dead[0].reason).toContain('Internal server error');
    await app.close();
  });

  it('stops its consumer when the app closes, leaving the bus open', async () => {
    const { app, recorder } = await start('closing', true);
    await app.close();
    const [later] = await emit([{ type: 'plan_requested' }]);
    const again = await start('closing', true);
    await waitFor('the next instance handles it', () =>
      again.recorder.handled.some((h) => h.event.id === later.id),
    );
    expect(recorder.handled.some((h) => h.event.id === later.id)).toBe(false);
    await again.app.close();
  });
});
