import fc from 'fast-check';
import { DiagnosticsBundleSchema, type ConstraintSpec, type PlanDiagnostic } from '@flex/contracts';
import { dedupeKey, mergeDiagnostics, satisfactionScore } from './diagnostics-merger';

const pick = <T extends string>(...values: T[]) => fc.constantFrom(...values);
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const diagnostic: fc.Arbitrary<PlanDiagnostic> = fc
  .record({
    severity: pick('hard', 'soft', 'informational'),
    status: pick('unsatisfied', 'satisfied', 'unknown'),
    cause: pick(
      'missing_producer',
      'missing_enforcer',
      'schema_incompatible',
      'unsatisfied_soft',
      'advisory',
    ),
    constraintId: optional(pick('min_qa', 'exact_two', 'tone_hint', 'structure.cycle')),
    constraint: optional(pick('a >= 1', 'b == 2')),
    nodeId: optional(pick('strategy-1', 'execution-1', 'validation-1')),
    capabilityId: optional(pick('A.x', 'B.y')),
    suggestion: optional(
      pick('Insert A.x before execution-1.', 'Add b.', 'Add b.\nInsert A.x before execution-1.', ''),
    ),
    details: optional(fc.record({ n: fc.integer({ min: 0, max: 3 }) })),
  })
  .map(
    (d) =>
      Object.fromEntries(Object.entries(d).filter(([, v]) => v !== undefined)) as unknown as PlanDiagnostic,
  );

const constraints: ConstraintSpec[] = [
  { constraintId: 'min_qa', level: 'hard', expr: { '>=': [{ var: 'qaFindings.overallScore' }, 0.8] } },
  { constraintId: 'exact_two', level: 'soft', expr: { '==': [{ var: 'copyVariants.length' }, 2] } },
  { constraintId: 'tone_hint', level: 'informational', expr: { '!!': [{ var: 'toneOfVoice' }] } },
];

const listAndPermutation = fc
  .array(diagnostic, { maxLength: 30 })
  .chain((list) =>
    fc.tuple(
      fc.constant(list),
      fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length }),
    ),
  );
const flatten = (b: ReturnType<typeof mergeDiagnostics>) => [...b.failures, ...b.warnings, ...b.infos];
const RANK = { hard: 0, soft: 1, informational: 2 } as const;

describe('DiagnosticsMerger: properties (spec 000 §5.9.3)', () => {
  it('does not depend on the order diagnostics arrive in', () => {
    fc.assert(
      fc.property(listAndPermutation, ([list, shuffled]) =>
        expect(mergeDiagnostics(shuffled, constraints)).toEqual(mergeDiagnostics(list, constraints)),
      ),
    );
  });

  it('is idempotent: merging merged output changes nothing', () => {
    fc.assert(
      fc.property(fc.array(diagnostic, { maxLength: 30 }), (list) => {
        const once = mergeDiagnostics(list, constraints);
        expect(mergeDiagnostics(flatten(once), constraints)).toEqual(once);
        expect(mergeDiagnostics([...list, ...list], constraints)).toEqual(once);
      }),
    );
  });

  it('sorts severity → constraintId → nodeId, one diagnostic per dedupe key, the most severe kept', () => {
    fc.assert(
      fc.property(fc.array(diagnostic, { maxLength: 30 }), (list) => {
        const merged = flatten(mergeDiagnostics(list, constraints));
        const keys = merged.map(dedupeKey);
        expect(new Set(keys).size).toBe(keys.length);
        expect(new Set(list.map(dedupeKey))).toEqual(new Set(keys));
        for (let i = 1; i < merged.length; i++) {
          const [a, b] = [merged[i - 1], merged[i]];
          expect(RANK[a.severity]).toBeLessThanOrEqual(RANK[b.severity]);
          if (a.severity === b.severity) expect((a.constraintId ?? '') <= (b.constraintId ?? '')).toBe(true);
          if (a.severity === b.severity && a.constraintId === b.constraintId)
            expect((a.nodeId ?? '') <= (b.nodeId ?? '')).toBe(true);
        }
        for (const d of merged) {
          const group = list.filter((x) => dedupeKey(x) === dedupeKey(d));
          expect(RANK[d.severity]).toBe(Math.min(...group.map((x) => RANK[x.severity])));
          const lines = new Set(group.flatMap((x) => (x.suggestion ?? '').split('\n').filter(Boolean)));
          expect(d.suggestion?.split('\n') ?? []).toEqual([...lines].sort());
        }
      }),
    );
  });

  it('always yields a bundle the contract accepts (status agrees with the buckets)', () => {
    fc.assert(
      fc.property(fc.array(diagnostic, { maxLength: 30 }), (list) =>
        expect(DiagnosticsBundleSchema.safeParse(mergeDiagnostics(list, constraints)).success).toBe(true),
      ),
    );
  });

  it('scores Σ w·s / Σ w with w_hard = 1.0 and w_soft = 0.5, informational excluded', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ level: pick('hard', 'soft', 'informational'), met: fc.boolean() }), {
          maxLength: 12,
        }),
        (specs) => {
          const list: ConstraintSpec[] = specs.map((s, i) => ({
            constraintId: `c${i}`,
            level: s.level,
            expr: { '==': [1, 1] },
          }));
          const diags: PlanDiagnostic[] = specs.flatMap((s, i) =>
            s.met
              ? []
              : [
                  {
                    severity: 'soft',
                    status: 'unsatisfied',
                    cause: 'unsatisfied_soft',
                    constraintId: `c${i}`,
                  } as PlanDiagnostic,
                ],
          );
          const w = { hard: 1, soft: 0.5, informational: 0 };
          const total = specs.reduce((t, s) => t + w[s.level], 0);
          const met = specs.reduce((t, s) => t + (s.met ? w[s.level] : 0), 0);
          expect(satisfactionScore(diags, list)).toBeCloseTo(total === 0 ? 1 : met / total, 6);
        },
      ),
    );
  });

  it('never scores a bundle with an unsatisfied hard diagnostic 1, and scores a sound plan by the spec formula', () => {
    fc.assert(
      fc.property(fc.array(diagnostic, { maxLength: 30 }), (list) => {
        const bundle = mergeDiagnostics(list, constraints);
        if (bundle.status === 'rejected') expect(bundle.satisfactionScore).toBeLessThan(1);
        const scored = constraints.filter((c) => c.level !== 'informational');
        const ids = scored.map((c) => c.constraintId ?? '');
        const unsound = bundle.failures.some(
          (d) => d.status === 'unsatisfied' && !ids.includes(d.constraintId ?? ''),
        );
        if (unsound) return;
        const failed = new Set(
          flatten(bundle)
            .filter((d) => d.status === 'unsatisfied')
            .map((d) => d.constraintId),
        );
        const w = { hard: 1, soft: 0.5, informational: 0 };
        const total = scored.reduce((t, c) => t + w[c.level], 0);
        const met = scored.reduce((t, c) => t + (failed.has(c.constraintId) ? 0 : w[c.level]), 0);
        expect(bundle.satisfactionScore).toBeCloseTo(met / total, 6);
      }),
    );
  });

  it('carries the proof verdict unchanged', () => {
    fc.assert(
      fc.property(
        fc.array(diagnostic, { maxLength: 10 }),
        pick('proven', 'refuted', 'unknown'),
        (list, verdict) => {
          const { verdict: carried, ...rest } = mergeDiagnostics(list, constraints, verdict);
          expect(carried).toBe(verdict);
          expect(rest).toEqual(mergeDiagnostics(list, constraints));
        },
      ),
    );
  });
});

describe('DiagnosticsMerger: the score of an unsound plan', () => {
  const cycle: PlanDiagnostic = {
    severity: 'hard',
    status: 'unsatisfied',
    cause: 'schema_incompatible',
    constraintId: 'structure.cycle',
  };

  it.each<[string, PlanDiagnostic[], ConstraintSpec[], number]>([
    ['a structural failure and no constraints', [cycle], [], 0],
    ['a structural failure beside a met hard constraint', [cycle], constraints.slice(0, 1), 0.5],
    ['a structural failure beside met hard and soft constraints', [cycle], constraints, 0.6],
    [
      'a structural failure and a failed hard constraint',
      [cycle, { ...cycle, constraintId: 'min_qa', cause: 'missing_producer' }],
      constraints,
      0.2,
    ],
    [
      'a hard failure on an informational constraint id',
      [{ ...cycle, constraintId: 'tone_hint' }],
      constraints,
      0.6,
    ],
    [
      'a failed hard constraint alone (the spec formula)',
      [{ ...cycle, constraintId: 'min_qa', cause: 'missing_producer' }],
      constraints,
      1 / 3,
    ],
    ['nothing wrong', [], constraints, 1],
  ])('%s', (_name, list, specs, expected) => {
    expect(mergeDiagnostics(list, specs).satisfactionScore).toBeCloseTo(expected, 6);
  });

  it('stays below 1 when rounding would lift it there', () => {
    const heavy = { hard: 1, soft: 1e7 };
    expect(satisfactionScore([cycle], [{ constraintId: 'c0', level: 'soft', expr: {} }], heavy)).toBe(
      0.999999,
    );
  });
});

describe('DiagnosticsMerger: examples', () => {
  const d = (over: Partial<PlanDiagnostic>): PlanDiagnostic => ({
    severity: 'soft',
    status: 'unsatisfied',
    cause: 'unsatisfied_soft',
    ...over,
  });

  it('dedupes on hash(constraint) when there is no constraintId', () => {
    const bundle = mergeDiagnostics(
      [
        d({ constraint: 'x > 1', suggestion: 'a' }),
        d({ constraint: 'x > 1', suggestion: 'b' }),
        d({ constraint: 'y > 1' }),
      ],
      [],
    );
    expect(bundle.warnings).toHaveLength(2);
    expect(bundle.warnings.map((w) => w.suggestion).sort()).toEqual(['a\nb', undefined].sort());
  });

  it('with equal severity keeps the least satisfied', () => {
    const bundle = mergeDiagnostics(
      [d({ constraintId: 'c', status: 'unknown' }), d({ constraintId: 'c', status: 'unsatisfied' })],
      [],
    );
    expect(bundle.warnings).toEqual([d({ constraintId: 'c', status: 'unsatisfied' })]);
  });
});
