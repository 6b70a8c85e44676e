import fc from 'fast-check';
import { ClientLimits, type Admission, type TokenLimits } from './client-limits';

const limits: TokenLimits = {
  requests: { ratePerSecond: 1_000_000, burst: 1_000_000 },
  connections: 3,
  streams: 2,
  runs: 4,
};

const held = (admission: Admission): (() => void) => {
  if (!admission.ok) throw new Error(`refused: ${admission.refusal.code}`);
  return admission.release;
};

describe('ClientLimits', () => {
  it('holds each token to its own slots, whatever the order of opens and releases', () => {
    const step = fc.record({ token: fc.constantFrom('a', 'b'), open: fc.boolean(), stream: fc.boolean() });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        const subject = new ClientLimits(limits, () => 0);
        const open = new Map<string, Array<() => void>>();
        for (const { token, open: opening, stream } of steps) {
          const key = `${token}:${stream ? 'stream' : 'request'}`;
          const slots = open.get(key) ?? [];
          open.set(key, slots);
          if (!opening) {
            // Releasing twice must release once.
            const release = slots.pop();
            release?.();
            release?.();
            continue;
          }
          const admission = stream ? subject.openStream(token) : subject.admitRequest(token);
          const cap = stream ? limits.streams : limits.connections;
          expect(admission.ok).toBe(slots.length < cap);
          if (admission.ok) slots.push(admission.release);
          else expect(admission.refusal.code).toBe(stream ? 'too_many_streams' : 'too_many_connections');
        }
      }),
    );
  });

  it('refuses past the rate with rate_limited and a Retry-After, per token', () => {
    let now = 0;
    const subject = new ClientLimits({ ...limits, requests: { ratePerSecond: 1, burst: 2 } }, () => now);
    held(subject.admitRequest('a'))();
    held(subject.admitRequest('a'))();
    const refused = subject.admitRequest('a');
    expect(refused).toMatchObject({ ok: false, refusal: { code: 'rate_limited', retryAfterSeconds: 1 } });
    expect(subject.admitRequest('b').ok).toBe(true);
    now = 1_000;
    expect(subject.admitRequest('a').ok).toBe(true);
  });

  it('costs a refused request nothing: the requests admitted are the same as if it had not been sent', () => {
    const rule: TokenLimits = { ...limits, requests: { ratePerSecond: 5, burst: 4 }, connections: 2 };
    const stepArb = fc.record({ ask: fc.boolean(), gap: fc.integer({ min: 0, max: 400 }) });
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 80 }), (steps) => {
        /** The steps but `skip`: asks held in flight, released in order; then how many it may send at once. */
        const run = (skip: ReadonlySet<number>) => {
          let now = 0;
          const subject = new ClientLimits(rule, () => now);
          const inFlight: Array<() => void> = [];
          const refused = new Set<number>();
          steps.forEach(({ ask, gap }, i) => {
            now += gap;
            if (skip.has(i)) return;
            if (!ask) return inFlight.shift()?.();
            const admission = subject.admitRequest('a');
            if (admission.ok) inFlight.push(admission.release);
            else refused.add(i);
          });
          inFlight.forEach((release) => release());
          let burst = 0;
          for (
            let admission = subject.admitRequest('a');
            admission.ok;
            admission = subject.admitRequest('a')
          ) {
            admission.release();
            burst += 1;
          }
          return { refused, burst };
        };
        const asked = run(new Set());
        const unasked = run(asked.refused);
        expect(unasked.refused.size).toBe(0);
        expect(asked.burst).toBe(unasked.burst);
      }),
    );
  });

  it('admits at most burst + rate × t in any window of t, and a refusal names a Retry-After that is enough (the least for the first refusal of a second)', () => {
    const ruleArb = fc.record({
      ratePerSecond: fc.integer({ min: 1, max: 100 }),
      burst: fc.integer({ min: 1, max: 40 }),
    });
    const gapsArb = fc.array(fc.integer({ min: 0, max: 1_500 }), { maxLength: 120 });
    fc.assert(
      fc.property(ruleArb, gapsArb, (requests, gaps) => {
        const times = gaps.reduce<number[]>((at, gap) => [...at, (at.at(-1) ?? 0) + gap], []);
        const rule = { ...limits, requests };
        /** A gateway that has seen the first `n` requests, at their times; now at `now`. */
        const replay = (n: number) => {
          const clock = { now: 0 };
          const subject = new ClientLimits(rule, () => clock.now);
          for (const at of times.slice(0, n)) {
            clock.now = at;
            const admission = subject.admitRequest('a');
            if (admission.ok) admission.release();
          }
          return { subject, clock };
        };
        const admitted: number[] = [];
        const refusedAt: number[] = [];
        times.forEach((at, i) => {
          const { subject, clock } = replay(i);
          clock.now = at;
          const admission = subject.admitRequest('a');
          if (admission.ok) return admitted.push(at);
          const seconds = admission.refusal.retryAfterSeconds;
          expect(Number.isInteger(seconds) && seconds >= 1).toBe(true);
          // Waiting Retry-After is enough; for the first refusal of a second (later ones are spread
          // over the seconds the rate needs), a whole second less would not have been.
          expect(probe(replay(i), at + seconds * 1_000)).toBe(true);
          const first = !refusedAt.some((t) => at - t < 1_000);
          if (first && seconds > 1) expect(probe(replay(i), at + (seconds - 1) * 1_000)).toBe(false);
          refusedAt.push(at);
        });
        for (let first = 0; first < admitted.length; first += 1)
          for (let last = first; last < admitted.length; last += 1) {
            const window = (admitted[last] - admitted[first]) / 1_000;
            expect(last - first + 1).toBeLessThanOrEqual(
              requests.burst + requests.ratePerSecond * window + 1e-9,
            );
          }
      }),
    );
  });

  it("spreads a token's Retry-After over the seconds its rate needs, whichever limit refused", () => {
    const subject = new ClientLimits({ ...limits, requests: { ratePerSecond: 2, burst: 2 } }, () => 0);
    held(subject.admitRequest('a'));
    held(subject.admitRequest('a'));
    const told = [1, 2, 3, 4, 5].map((): number => {
      const refused = subject.admitRequest('a');
      return refused.ok ? 0 : refused.refusal.retryAfterSeconds;
    });
    expect(told).toEqual([1, 1, 2, 2, 3]);
    const runs = { code: 'too_many_runs' as const, message: 'm', limit: 8, retryAfterSeconds: 2 };
    expect(subject.refusal('a', runs).retryAfterSeconds).toBe(3);
    expect(subject.refusal('a', runs).retryAfterSeconds).toBe(4);
    expect(subject.refusal('b', runs).retryAfterSeconds).toBe(2);
  });
});

/** Whether the gateway would admit one more request at `at`. */
function probe({ subject, clock }: { subject: ClientLimits; clock: { now: number } }, at: number): boolean {
  clock.now = at;
  return subject.admitRequest('a').ok;
}
