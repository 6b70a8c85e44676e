import { canonicalJson, type TaskEnvelope } from '@flex/contracts';
import { planHash, plannerInputHash } from './planner-input';
import { planRuleBased } from './rule-based.planner';
import { planOf, registrations, request, sampleEnvelope, threeVariantsWithQa } from './test.fixture';

/** A seeded PRNG, so a failing shuffle can be replayed. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

/** The same value with every object's keys (and the registry's order) shuffled. */
function shuffleKeys<T>(value: T, random: () => number): T {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(v, random)) as T;
  if (!value || typeof value !== 'object') return value;
  const entries = Object.entries(value).sort(() => random() - 0.5);
  return Object.fromEntries(entries.map(([k, v]) => [k, shuffleKeys(v, random)])) as T;
}

const shuffled = <T>(list: readonly T[], random: () => number) => [...list].sort(() => random() - 0.5);

describe('spec 004 replay contract: the rule-based planner is fully deterministic', () => {
  const envelopes: Array<[string, TaskEnvelope]> = [
    ['the spec sample', sampleEnvelope()],
    ['three variants with QA', threeVariantsWithQa()],
    [
      'a unicode objective',
      sampleEnvelope(
        (raw) => (raw.objective = '  Créer des posts LinkedIn — 日本語テキスト, emoji 🚀🧪, ÅÄÖ ß  '),
      ),
    ],
    [
      'a 10,000-character objective',
      sampleEnvelope((raw) => (raw.objective = 'Écrire '.repeat(1_429).slice(0, 10_000))),
    ],
  ];

  it.each(envelopes)(
    'gives one canonical plan and one input hash over 100 calls with shuffled key order (%s)',
    (_name, envelope) => {
      const random = prng(42);
      const first = planOf(planRuleBased(request(envelope)));
      const plans = new Set<string>();
      const hashes = new Set<string>();
      for (let i = 0; i < 100; i++) {
        const req = request(shuffleKeys(envelope, random), {
          capabilities: shuffled(registrations, random).map((r) => shuffleKeys(r, random)),
        });
        const plan = planOf(planRuleBased(req));
        plans.add(canonicalJson(plan));
        hashes.add(plannerInputHash(req));
      }
      expect(plans.size).toBe(1);
      expect([...plans][0]).toBe(canonicalJson(first));
      expect([...hashes]).toEqual([first.metadata.inputHash]);
    },
  );

  it('normalizes the goal as spec 004 says: surrounding space and case do not change the input hash', () => {
    const base = request(sampleEnvelope((raw) => (raw.objective = 'Créer des posts')));
    const noisy = request(sampleEnvelope((raw) => (raw.objective = '   CRÉER DES POSTS \n')));
    const decomposed = request(sampleEnvelope((raw) => (raw.objective = 'Cre\u0301er des posts')));
    expect(plannerInputHash(noisy)).toBe(plannerInputHash(base));
    expect(plannerInputHash(decomposed)).toBe(plannerInputHash(base));
    expect(planHash(planOf(planRuleBased(noisy)))).toBe(planHash(planOf(planRuleBased(base))));
  });

  it('changes the input hash when anything the plan depends on changes', () => {
    const base = plannerInputHash(request(sampleEnvelope()));
    expect(plannerInputHash(request(sampleEnvelope((raw) => (raw.objective = 'Something else'))))).not.toBe(
      base,
    );
    expect(plannerInputHash(request(sampleEnvelope(), { capabilities: registrations.slice(1) }))).not.toBe(
      base,
    );
    expect(plannerInputHash(request(sampleEnvelope(), { planVersion: 2 }))).not.toBe(base);
    expect(plannerInputHash(request(sampleEnvelope(), { attempt: 3 }))).toBe(base);
  });

  it('leaves tokens and cost out of the plan hash', () => {
    const plan = planOf(planRuleBased(request(sampleEnvelope())));
    expect(
      planHash({ ...plan, metadata: { ...plan.metadata, tokens: { input: 9, output: 9 }, costCents: 3 } }),
    ).toBe(planHash(plan));
    expect(planHash({ ...plan, planVersion: 2 })).not.toBe(planHash(plan));
  });
});
