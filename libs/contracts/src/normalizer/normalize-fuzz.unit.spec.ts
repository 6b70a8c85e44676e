import fc from 'fast-check';
import { canonicalJson } from '../canonical/canonical-json';
import { TaskEnvelopeSchema } from '../envelope/task-envelope';
import { normalizeEnvelope } from './normalize-envelope';

const base = { objective: 'Fuzzed', outputContract: { schema: { type: 'object' } } };
const legacyish = fc.record(
  {
    variantCount: fc.oneof(fc.integer({ min: -1, max: 60 }), fc.string()),
    brandVoice: fc.jsonValue(),
    persona: fc.jsonValue(),
    requiresHitlApproval: fc.oneof(fc.boolean(), fc.jsonValue()),
    hitlRequiredFor: fc.oneof(
      fc.array(fc.constantFrom('final_publish', 'validation', 'writer.en', 'bad id', '')),
      fc.jsonValue(),
    ),
    planner: fc.oneof(fc.constant({}), fc.jsonValue()),
    runtime: fc.array(
      fc.record(
        {
          id: fc.constantFrom('a', 'b', 'c'),
          trigger: fc.record(
            {
              kind: fc.constantFrom('onNodeComplete', 'onValidationFail', 'onStart', 'manual', 'x'),
              nodeId: fc.string(),
              selector: fc.jsonValue(),
            },
            { requiredKeys: ['kind'] },
          ),
          condition: fc.jsonValue(),
          action: fc.record(
            {
              type: fc.constantFrom('goto', 'hitl', 'fail_run', 'replan', 'emit', 'x'),
              approveAction: fc.jsonValue(),
            },
            { requiredKeys: ['type'] },
          ),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: [] },
);

describe('normalizeEnvelope never throws and only returns canonical envelopes', () => {
  it('on arbitrary values', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const result = normalizeEnvelope(raw);
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.errors.every((e) => e.code !== 'internal_error')).toBe(true);
      }),
    );
  });

  it('on envelopes with arbitrary legacy-looking policies', () => {
    fc.assert(
      fc.property(legacyish, (policies) => {
        const raw = { ...base, policies };
        const before = canonicalJson(raw);
        const result = normalizeEnvelope(raw);
        expect(canonicalJson(raw)).toBe(before);
        if (result.ok) {
          expect(TaskEnvelopeSchema.parse(JSON.parse(JSON.stringify(result.envelope)))).toEqual(
            result.envelope,
          );
        } else {
          expect(result.errors.length).toBeGreaterThan(0);
          expect(result.errors.every((e) => e.code !== 'internal_error' && typeof e.path === 'string')).toBe(
            true,
          );
        }
      }),
      { numRuns: 200 },
    );
  });
});
