import fc from 'fast-check';
import type { InvokeOutcome } from './invoke.decide';
import { findSecretText, MIN_SECRET_MATCH, secretFreeOutcome, secretTexts } from './secret-free-outcome';

const SECRET = '-----BEGIN PRIVATE KEY-----MIIEvQ';
const ok = (output: Record<string, unknown>): InvokeOutcome => ({ ok: true, output, durationMs: 5 });

describe('secretFreeOutcome: no secret of the run is appended from an agent answer', () => {
  it('refuses an output that repeats a secret verbatim, naming the path but not the value', () => {
    const outcome = secretFreeOutcome(
      ok({ copyVariants: [{ headline: 'Hi', body: `Our key: ${SECRET}!` }] }),
      [{ deployKey: SECRET }],
    );
    expect(outcome).toEqual({
      ok: false,
      durationMs: 5,
      error: {
        code: 'invalid_output',
        message: expect.stringContaining('/copyVariants/0/body'),
        retryable: true,
      },
      outputErrors: [{ path: '/copyVariants/0/body', keyword: 'secret', message: expect.any(String) }],
    });
    expect(JSON.stringify(outcome)).not.toContain(SECRET);
  });

  it('finds a secret used as a key, and a numeric secret', () => {
    expect(findSecretText({ a: [{ [`x${SECRET}`]: 1 }] }, [SECRET])).toEqual(['a', 0, `x${SECRET}`]);
    expect(secretFreeOutcome(ok({ pin: 'code 12345678' }), [12345678]).ok).toBe(false);
  });

  it('redacts failure text and usage.model, and leaves a clean output as it was', () => {
    const failed = secretFreeOutcome(
      {
        ok: false,
        durationMs: 1,
        error: { code: 'agent_error', message: `could not log in with ${SECRET}`, retryable: true },
        outputErrors: [{ path: `/${SECRET}`, message: `bad ${SECRET}`, facet: SECRET, keyword: 'type' }],
      },
      [SECRET],
    );
    expect(JSON.stringify(failed)).not.toContain(SECRET);
    expect(failed).toMatchObject({ error: { message: 'could not log in with [secret]' } });
    const clean = ok({ body: 'nothing to see' });
    expect(secretFreeOutcome(clean, [SECRET])).toBe(clean);
    const model = secretFreeOutcome({ ...clean, usage: { model: `m-${SECRET}` } } as InvokeOutcome, [SECRET]);
    expect(model).toMatchObject({ ok: true, usage: { model: 'm-[secret]' } });
  });

  it(`ignores text shorter than ${MIN_SECRET_MATCH} characters (too likely in honest prose)`, () => {
    expect(secretTexts(['abc', 'abcdef', { n: ['longer-one', 7] }, null, true])).toEqual([
      'longer-one',
      'abcdef',
    ]);
    expect(secretFreeOutcome(ok({ body: 'abc' }), ['abc']).ok).toBe(true);
  });

  it('property: an output holding a secret at any depth is refused; one without passes untouched', () => {
    const secret = fc.string({ minLength: MIN_SECRET_MATCH, maxLength: 40 }).map((s) => `⟦${s}⟧`);
    const json = fc.jsonValue({ maxDepth: 4 }).filter((v) => !JSON.stringify(v).includes('⟦'));
    const path = fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.nat(3)), { maxLength: 60 });
    fc.assert(
      fc.property(secret, json, path, fc.string(), fc.string(), (s, noise, at, before, after) => {
        const planted = at.reduceRight<unknown>(
          (inner, k) => (typeof k === 'number' ? [...Array(k).fill(noise), inner] : { [k]: inner }),
          `${before}${s}${after}`,
        );
        const refused = secretFreeOutcome(ok({ noise, planted }), [{ nested: [s] }]);
        expect(refused.ok).toBe(false);
        expect(JSON.stringify(refused)).not.toContain(s);
        const clean = ok({ noise });
        expect(secretFreeOutcome(clean, [s])).toBe(clean);
      }),
    );
  });

  it('walks an output nested 50,000 deep without overflowing the stack', () => {
    let deep: unknown = `x${SECRET}`;
    for (let i = 0; i < 50_000; i++) deep = { d: deep };
    const refused = secretFreeOutcome(ok({ deep }), [SECRET]);
    expect(refused).toMatchObject({ ok: false, outputErrors: [{ keyword: 'secret' }] });
  });
});
