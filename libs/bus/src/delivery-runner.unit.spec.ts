import { parseConsumeOptions, retryDelayMs } from './consume-options';
import { runDelivery, type RawDelivery } from './delivery-runner';
import { storedEvent } from './test-support/memory-event-log';
import { RecordingLogger } from './test-support/recording-logger';
import type { ConsumeOptions, DeadLetter, DeliveryHandler } from './types';

/** A raw delivery that records what the runner told the carrier, in order. */
function raw(deliveryCount = 1, type = 'plan_requested'): RawDelivery & { actions: string[] } {
  const actions: string[] = [];
  return {
    actions,
    event: storedEvent(7, { type, id: 'ev-7' }),
    deliveryCount,
    ack: async () => void actions.push('ack'),
    nak: (delayMs) => void actions.push(`nak:${delayMs}`),
    term: () => void actions.push('term'),
    working: () => void actions.push('working'),
  };
}

async function run(
  delivery: RawDelivery & { actions: string[] },
  handler: DeliveryHandler,
  options: Partial<ConsumeOptions> = {},
) {
  const dead: DeadLetter[] = [];
  const onDeadLetter =
    options.onDeadLetter ??
    (async (letter: DeadLetter) => {
      delivery.actions.push('dead-letter');
      dead.push(letter);
    });
  const logger = new RecordingLogger();
  await runDelivery(
    delivery,
    parseConsumeOptions({ durable: 'planner', maxDeliver: 3, ...options, onDeadLetter }),
    handler,
    logger,
  );
  return { actions: delivery.actions, dead, logger };
}

const fail =
  (props: Record<string, unknown> = {}) =>
  async () => {
    throw Object.assign(new Error('nope'), props);
  };

describe('runDelivery', () => {
  it('acks when the handler resolves without settling', async () => {
    expect((await run(raw(), async () => undefined)).actions).toEqual(['ack']);
  });

  it('acks types the consumer does not handle, without calling the handler', async () => {
    const handler = jest.fn(async () => undefined);
    expect((await run(raw(1, 'other'), handler, { types: ['plan_requested'] })).actions).toEqual(['ack']);
    expect(handler).not.toHaveBeenCalled();
  });

  it('naks a retryable failure with exponential backoff', async () => {
    expect((await run(raw(1), fail())).actions).toEqual(['nak:200']);
    expect((await run(raw(2), fail({ retryable: true }), { maxDeliver: 5 })).actions).toEqual(['nak:400']);
  });

  it('dead-letters, then terms, a failure on the last delivery', async () => {
    const { actions, dead } = await run(raw(3), fail({ code: 'DB_DOWN' }));
    expect(actions).toEqual(['dead-letter', 'term']);
    expect(dead).toEqual([
      {
        consumer: 'planner',
        event: expect.objectContaining({ id: 'ev-7' }),
        deliveryCount: 3,
        reason: 'failed on all 3 deliveries; last error: DB_DOWN: nope',
      },
    ]);
  });

  it('dead-letters a non-retryable failure on the first delivery', async () => {
    const { actions, dead } = await run(raw(1), fail({ code: 'INVALID', retryable: false }));
    expect(actions).toEqual(['dead-letter', 'term']);
    expect(dead[0].reason).toBe('INVALID: nope');
  });

  it('dead-letters a delivery past maxDeliver without calling the handler', async () => {
    const handler = jest.fn(async () => undefined);
    const { actions, dead } = await run(raw(4), handler);
    expect(handler).not.toHaveBeenCalled();
    expect(actions).toEqual(['dead-letter', 'term']);
    expect(dead[0].reason).toBe('not acknowledged after 3 deliveries');
  });

  it('lets the handler settle the delivery itself', async () => {
    expect((await run(raw(), async (d) => d.nak(5))).actions).toEqual(['nak:5']);
    expect((await run(raw(), async (d) => void (await d.ack()))).actions).toEqual(['ack']);
    expect((await run(raw(), async (d) => d.working())).actions).toEqual(['working', 'ack']);
    const termed = await run(raw(), async (d) => d.term('unreadable'));
    expect(termed.actions).toEqual(['dead-letter', 'term']);
    expect(termed.dead[0].reason).toBe('unreadable');
  });

  it('ignores settling twice, and a throw after settling', async () => {
    const { actions, logger } = await run(raw(), async (d) => {
      await d.ack();
      d.nak();
      d.term();
      throw new Error('late');
    });
    expect(actions).toEqual(['ack']);
    expect(logger.entries).toEqual([
      expect.objectContaining({ level: 'warn', message: 'handler threw after settling the delivery' }),
    ]);
  });

  it('naks instead of terming when the dead letter cannot be recorded', async () => {
    const delivery = raw(1);
    const { actions, logger } = await run(delivery, fail({ retryable: false }), {
      onDeadLetter: async () => {
        throw new Error('db down');
      },
    });
    expect(actions).toEqual(['nak:200']);
    expect(logger.entries[0]).toMatchObject({
      level: 'error',
      message: 'recording a dead letter failed; redelivering',
    });
  });
});

describe('consume options', () => {
  it('backs off 200ms, doubling, capped at 30s', () => {
    expect([1, 2, 3, 4, 8, 9, 50].map(retryDelayMs)).toEqual([200, 400, 800, 1600, 25_600, 30_000, 30_000]);
  });

  it('rejects options that can never work', () => {
    expect(() => parseConsumeOptions({ durable: 'a.b' })).toThrow(
      expect.objectContaining({ code: 'INVALID_BUS_OPTIONS' }),
    );
    expect(() => parseConsumeOptions({ durable: 'ok', maxDeliver: 0 })).toThrow(/maxDeliver/);
    expect(() => parseConsumeOptions({ durable: 'ok', concurrency: 1.5 })).toThrow(/concurrency/);
    expect(parseConsumeOptions({ durable: 'ok' })).toMatchObject({
      maxDeliver: 10,
      ackWaitMs: 30_000,
      concurrency: 1,
    });
  });
});
