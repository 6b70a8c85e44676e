import type { StoredEvent } from '@flex/event-store';
import { replayAdapters, takenFromRecord, type ReplayAdapter, type ReplayStep } from './adapter';
import { stream } from './replay.spec-helper';
import { verifyReplay } from './verify-replay';

const t0 = '2026-01-01T00:00:00.000Z';
const t1 = '2026-01-01T00:00:01.000Z';

/** A toy component: on `tick n` it decides `tock n+1`, and a `log` line when n is even. */
function counter(rule = (n: number) => n + 1): ReplayAdapter {
  return {
    producer: 'counter',
    redecide: ({ trigger }: ReplayStep) => {
      const n = (trigger?.payload as { n: number }).n;
      const events = [{ type: 'tock', payload: { n: rule(n) } }];
      return [{ via: 'tick', events: n % 2 === 0 ? [...events, { type: 'log', payload: { n } }] : events }];
    },
  };
}
const outside: ReplayAdapter = { producer: 'outside', redecide: (step) => [takenFromRecord(step.recorded)] };
const by = (producer: string, causationId?: string) => ({ producer, causationId });

function run(...ticks: number[]): StoredEvent[] {
  return stream(
    ...ticks.flatMap((n, i) => {
      const tick = `00000000-0000-4000-8000-${String(i * 3 + 1).padStart(12, '0')}`;
      const decided: Array<[string, unknown, ReturnType<typeof by>, string]> = [
        ['tock', { n: n + 1 }, by('counter', tick), t0],
      ];
      if (n % 2 === 0) decided.push(['log', { n }, by('counter', tick), t0]);
      else decided.push(['noise', { n }, by('outside'), t1]);
      return [['tick', { n }, by('outside'), t1] as const, ...decided];
    }),
  );
}

describe('verifyReplay: each recorded append decided again and compared', () => {
  const adapters = replayAdapters(counter(), outside);

  it('verifies a record its components decide the same today, counting what was taken from the record', () => {
    const events = run(1, 2, 3);
    expect(verifyReplay(events, adapters)).toEqual({
      streamId: 'run-r1',
      events: events.length,
      verified: events.length,
      fromRecord: 5,
      lastPosition: events[events.length - 1].position,
      open: true,
    });
  });

  it('names the first event, field, values and component that a change of logic alters', () => {
    const events = run(1, 2);
    const report = verifyReplay(
      events,
      replayAdapters(
        counter((n) => n + 2),
        outside,
      ),
    );
    expect(report.verified).toBe(1);
    expect(report.divergence).toMatchObject({
      kind: 'changed',
      position: events[1].position,
      version: 2,
      type: 'tock',
      path: '/payload/n',
      recorded: 2,
      now: 3,
      producer: 'counter',
      component: 'counter',
      via: 'tick',
    });
  });

  it('counts the events of an append before its divergent one as verified', () => {
    const events = run(2);
    const edited = events.map((e) => (e.type === 'log' ? { ...e, payload: { n: 9 } } : e));
    expect(verifyReplay(edited, adapters)).toMatchObject({
      verified: 2,
      divergence: { version: 3, type: 'log', path: '/payload/n', recorded: 9, now: 2 },
    });
  });

  it('reports an event no longer decided (missing) and one decided now that was not (extra)', () => {
    const events = run(2);
    const silent: ReplayAdapter = { producer: 'counter', redecide: () => [{ via: 'tick', events: [] }] };
    expect(verifyReplay(events, replayAdapters(silent, outside)).divergence).toMatchObject({
      kind: 'missing',
      version: 2,
      type: 'tock',
      path: '',
      now: undefined,
    });
    const chatty = events.filter((e) => e.type !== 'log');
    expect(verifyReplay(chatty, adapters).divergence).toMatchObject({
      kind: 'extra',
      version: 3,
      type: 'log',
      now: { type: 'log', payload: { n: 2 } },
      recorded: undefined,
    });
  });

  it('splits two appends of one millisecond where the first decision ends', () => {
    // The counter's two decisions on the same trigger, recorded in the same millisecond.
    const events = stream(
      ['tick', { n: 1 }, by('outside'), t1],
      ['tock', { n: 2 }, by('counter', '00000000-0000-4000-8000-000000000001'), t0],
      ['tock', { n: 2 }, by('counter', '00000000-0000-4000-8000-000000000001'), t0],
    );
    expect(verifyReplay(events, adapters)).toMatchObject({ verified: 3 });
  });

  it('reports a producer without an adapter, and an adapter that throws, instead of skipping them', () => {
    const events = run(1);
    expect(verifyReplay(events, replayAdapters(counter())).divergence).toMatchObject({
      kind: 'no_adapter',
      version: 1,
      producer: 'outside',
      path: '/metadata/producer',
    });
    const broken: ReplayAdapter = {
      producer: 'counter',
      redecide: () => {
        throw new Error('no state');
      },
    };
    expect(verifyReplay(events, replayAdapters(broken, outside)).divergence).toMatchObject({
      kind: 'adapter_error',
      version: 2,
      now: 'no state',
    });
    const notJson: ReplayAdapter = {
      producer: 'counter',
      redecide: () => [{ via: 'x', events: [{ type: 'tock', payload: { n: NaN } }] }],
    };
    expect(verifyReplay(events, replayAdapters(notJson, outside)).divergence).toMatchObject({
      kind: 'adapter_error',
      now: expect.stringContaining('NaN is not a JSON number'),
    });
  });

  it('says whether the run has ended', () => {
    const [complete] = stream(['complete', {}, by('outside'), t1]);
    const ended = [...run(1), { ...complete, id: 'the-end', version: 4 }];
    expect(verifyReplay(ended, adapters)).toMatchObject({ open: false, verified: 4 });
  });
});
