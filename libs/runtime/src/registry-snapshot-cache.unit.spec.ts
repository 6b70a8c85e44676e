import fc from 'fast-check';
import type { CapabilitySnapshot } from './registry.client';
import { RegistrySnapshotCache } from './registry-snapshot-cache';

const MAX_AGE_MS = 100;

/** A snapshot the model registry answered: which of its versions, asked when. */
type Answer = CapabilitySnapshot & { version: number; askedAt: number; answeredAtStep: number };

interface Fetch {
  askedAt: number;
  servedVersion?: number;
  resolve: (snapshot: Answer) => void;
}

interface Get {
  calledAt: number;
  calledAtStep: number;
  /** The last change whose notice the process had received when it asked. */
  heardOf: number;
  result: Promise<Answer>;
}

type Step =
  | { kind: 'change' }
  | { kind: 'notice' }
  | { kind: 'get' }
  | { kind: 'serve'; pick: number }
  | { kind: 'answer'; pick: number }
  | { kind: 'tick'; ms: number };

const anyStep: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ kind: 'change' as const }),
  fc.constant({ kind: 'notice' as const }),
  fc.constant({ kind: 'get' as const }),
  fc.nat(20).map((pick) => ({ kind: 'serve' as const, pick })),
  fc.nat(20).map((pick) => ({ kind: 'answer' as const, pick })),
  fc.integer({ min: 1, max: 150 }).map((ms) => ({ kind: 'tick' as const, ms })),
);

const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A model registry (a version bumped by each change, whose notice reaches the process later, in
 * order) and the process's cache, driven through any interleaving of changes, notices, asks, the
 * registry serving a fetch (reading its version then) and the answer arriving.
 */
async function play(steps: readonly Step[]) {
  let now = 0;
  let version = 0;
  let heardOf = 0;
  const notices: number[] = [];
  let onChanged: () => void = () => undefined;
  const cache = new RegistrySnapshotCache({
    maxAgeMs: MAX_AGE_MS,
    now: () => now,
    listen: async (listener) => void (onChanged = listener),
  });
  const fetches: Fetch[] = [];
  const gets: Get[] = [];
  const fetch = () =>
    new Promise<Answer>((resolve) => fetches.push({ askedAt: now, resolve })) as Promise<CapabilitySnapshot>;
  const unserved = () => fetches.filter((f) => f.servedVersion === undefined);
  const served = () => fetches.filter((f) => f.servedVersion !== undefined);
  const serve = (f: Fetch) => (f.servedVersion = version);
  const answer = (f: Fetch) => {
    fetches.splice(fetches.indexOf(f), 1);
    f.resolve({ capabilities: [], version: f.servedVersion ?? -1, askedAt: f.askedAt, answeredAtStep: step });
  };
  let step = 0;
  for (const s of steps) {
    step++;
    if (s.kind === 'change') notices.push(++version);
    else if (s.kind === 'notice' && notices.length) {
      heardOf = notices.shift() ?? heardOf;
      onChanged();
    } else if (s.kind === 'get') {
      const result = cache.get(fetch) as Promise<Answer>;
      gets.push({ calledAt: now, calledAtStep: step, heardOf, result });
    } else if (s.kind === 'serve' && unserved().length) serve(unserved()[s.pick % unserved().length]);
    else if (s.kind === 'answer' && served().length) answer(served()[s.pick % served().length]);
    else if (s.kind === 'tick') now += s.ms;
    await settle();
  }
  // Everything still asked is served and answered, so every get ends.
  step++;
  for (let round = 0; round < 10 && fetches.length; round++) {
    for (const f of [...fetches]) answer(f.servedVersion === undefined ? (serve(f), f) : f);
    await settle();
  }
  return { gets, version };
}

describe('RegistrySnapshotCache (model-based)', () => {
  it('never serves a snapshot older than a change the process had heard of when it asked, nor older than maxAge', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyStep, { minLength: 6, maxLength: 60, size: 'medium' }), async (steps) => {
        const { gets, version } = await play(steps);
        for (const get of gets) {
          const answer = await get.result;
          expect(answer.version).toBeGreaterThanOrEqual(get.heardOf);
          expect(answer.version).toBeLessThanOrEqual(version);
          // A snapshot kept (answered before the ask) is younger than maxAge; one in flight is fresh.
          if (answer.answeredAtStep < get.calledAtStep)
            expect(answer.askedAt).toBeGreaterThan(get.calledAt - MAX_AGE_MS);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('asks the registry once for a burst of askers, and not again until a notice or maxAge', async () => {
    let asked = 0;
    let now = 0;
    let onChanged: () => void = () => undefined;
    const cache = new RegistrySnapshotCache({
      maxAgeMs: 1_000,
      now: () => now,
      listen: async (listener) => void (onChanged = listener),
    });
    const fetch = async () => ({ capabilities: [], asked: ++asked });
    await Promise.all(Array.from({ length: 20 }, () => cache.get(fetch)));
    expect(asked).toBe(1);
    now += 999;
    await cache.get(fetch);
    expect(asked).toBe(1);
    onChanged();
    await cache.get(fetch);
    expect(asked).toBe(2);
    now += 1_000;
    await cache.get(fetch);
    expect(asked).toBe(3);
  });

  it('keeps nothing while the notices cannot be listened to, and listens again on the next ask', async () => {
    let asked = 0;
    let refuse = true;
    const cache = new RegistrySnapshotCache({
      maxAgeMs: 1_000,
      now: () => 0,
      listen: async () => {
        if (refuse) throw new Error('permission denied');
      },
    });
    const fetch = async () => ({ capabilities: [], asked: ++asked });
    await cache.get(fetch);
    await cache.get(fetch);
    expect(asked).toBe(2);
    refuse = false;
    await cache.get(fetch);
    await cache.get(fetch);
    expect(asked).toBe(3);
  });

  it('hands out a frozen snapshot: no asker can change what the next one gets', async () => {
    const cache = new RegistrySnapshotCache({ maxAgeMs: 1_000, now: () => 0, listen: async () => undefined });
    const snapshot = await cache.get(async () => ({ capabilities: [] }));
    expect(Object.isFrozen(snapshot.capabilities)).toBe(true);
  });
});
