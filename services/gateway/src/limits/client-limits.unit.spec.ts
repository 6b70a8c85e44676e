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
});
