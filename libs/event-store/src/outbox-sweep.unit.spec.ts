import fc from 'fast-check';
import { OutboxSweep } from './outbox-sweep';

const BEAT_MS = 50;

type Step =
  | { kind: 'add'; count: number }
  | { kind: 'wait'; ms: number }
  | { kind: 'finish'; fail: boolean }
  | { kind: 'flush' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), count: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 1, max: 2 * BEAT_MS }) }),
  fc.record({ kind: fc.constant('finish' as const), fail: fc.boolean() }),
  fc.record({ kind: fc.constant('flush' as const) }),
);

function warnings() {
  const lines: string[] = [];
  return { lines, warn: (msg: string) => void lines.push(msg), error: (msg: string) => void lines.push(msg) };
}

/**
 * A DELETE the test finishes when it says (or fails), so that adds land while one is in flight.
 * `onIdle` is called whenever no DELETE is in flight any more.
 */
function controlledRemove(onIdle: () => void = () => undefined) {
  const calls: Array<{ positions: number[]; at: number }> = [];
  let inFlight: { finish(fail: boolean): void } | undefined;
  let overlapped = false;
  const remove = (positions: readonly number[]) => {
    if (inFlight) overlapped = true;
    calls.push({ positions: [...positions], at: Date.now() });
    return new Promise<void>((resolve, reject) => {
      inFlight = {
        finish: (fail) => {
          inFlight = undefined;
          onIdle();
          if (fail) reject(new Error('connection lost'));
          else resolve();
        },
      };
    });
  };
  return {
    calls,
    remove,
    finish: (fail: boolean) => inFlight?.finish(fail),
    get busy() {
      return inFlight !== undefined;
    },
    get overlapped() {
      return overlapped;
    },
  };
}

describe('OutboxSweep', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('hands every published position to one DELETE at a time, each within a beat of being due, and flush empties it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        /** Per position added: since when the sweep was free to take it (added, and no DELETE in flight). */
        const due = new Map<number, number | undefined>();
        const db = controlledRemove(() => {
          for (const [p, since] of due) if (since === undefined) due.set(p, Date.now());
        });
        const logger = warnings();
        const sweep = new OutboxSweep(db.remove, BEAT_MS, logger);
        let next = 1;
        for (const s of steps) {
          if (s.kind === 'add') {
            const positions = Array.from({ length: s.count }, () => next++);
            positions.forEach((p) => due.set(p, db.busy ? undefined : Date.now()));
            sweep.add(positions);
          } else if (s.kind === 'wait') {
            await jest.advanceTimersByTimeAsync(s.ms);
          } else if (s.kind === 'finish') {
            db.finish(s.fail);
            await jest.advanceTimersByTimeAsync(0);
          } else {
            const flushed = sweep.flush();
            // A flush waits for the DELETE in flight: the test's database answers it.
            while (db.busy || !(await settled(flushed))) {
              db.finish(false);
              await jest.advanceTimersByTimeAsync(0);
            }
          }
          expect(db.overlapped).toBe(false);
        }
        const flushed = sweep.flush();
        while (!(await settled(flushed))) {
          db.finish(false);
          await jest.advanceTimersByTimeAsync(0);
        }
        const handed = db.calls.flatMap((c) => c.positions);
        // Each exactly once, in order: a failed DELETE is left to the relay, never retried here.
        expect(handed).toEqual([...due.keys()]);
        expect(db.calls.every((c) => c.positions.length > 0)).toBe(true);
        // Never more DELETEs than adds; none later than a beat after its rows were free to go.
        expect(db.calls.length).toBeLessThanOrEqual(steps.filter((s) => s.kind === 'add').length);
        for (const call of db.calls)
          for (const p of call.positions)
            expect(call.at).toBeLessThanOrEqual((due.get(p) ?? -Infinity) + BEAT_MS);
        const failed = steps.filter((s) => s.kind === 'finish' && s.fail).length;
        expect(logger.lines.filter((l) => l.includes('could not clear')).length).toBeLessThanOrEqual(failed);
      }),
      { numRuns: 200, verbose: true },
    );
  });

  it('waits at most a beat when no DELETE is in flight', async () => {
    const db = controlledRemove();
    const sweep = new OutboxSweep(db.remove, BEAT_MS, warnings());
    sweep.add([1]);
    await jest.advanceTimersByTimeAsync(BEAT_MS / 2);
    sweep.add([2, 3]);
    expect(db.calls).toEqual([]);
    await jest.advanceTimersByTimeAsync(BEAT_MS / 2);
    expect(db.calls.map((c) => c.positions)).toEqual([[1, 2, 3]]);
    sweep.add([4]);
    await jest.advanceTimersByTimeAsync(2 * BEAT_MS);
    // Still in flight: position 4 waits for it, then for the next beat.
    expect(db.calls).toHaveLength(1);
    db.finish(false);
    await jest.advanceTimersByTimeAsync(BEAT_MS);
    expect(db.calls.map((c) => c.positions)).toEqual([[1, 2, 3], [4]]);
    db.finish(false);
  });
});

async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await jest.advanceTimersByTimeAsync(0);
  return done;
}
