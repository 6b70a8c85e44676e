import { normalizeEnvelope } from './normalize-envelope';
import type { NormalizationChange } from './validation-issue';

const base = () => ({
  objective: 'Write two LinkedIn posts',
  outputContract: { schema: { type: 'object' } },
});
const policy = (extra: Record<string, unknown> = {}) => ({
  id: 'p',
  trigger: { kind: 'onNodeComplete' },
  action: { type: 'replan' },
  ...extra,
});

function accept(raw: unknown) {
  const result = normalizeEnvelope(raw);
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.errors)}`);
  return result;
}

describe('normalizeEnvelope: legacy shapes are mapped and reported', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, NormalizationChange[]]>([
    [
      'policies.variantCount',
      { policies: { variantCount: 3 } },
      { policies: { planner: { topology: { variantCount: 3 } } } },
      [
        {
          path: 'policies.variantCount',
          from: 3,
          to: 'policies.planner.topology.variantCount',
          note: expect.any(String),
        },
      ],
    ],
    [
      'policies.brandVoice',
      { policies: { brandVoice: 'inspiring', planner: { directives: { audience: 'devs' } } } },
      { policies: { planner: { directives: { audience: 'devs', brandVoice: 'inspiring' } } } },
      [
        {
          path: 'policies.brandVoice',
          from: 'inspiring',
          to: 'policies.planner.directives.brandVoice',
          note: expect.any(String),
        },
      ],
    ],
    [
      'policies.persona',
      { policies: { persona: 'marketer' } },
      { policies: { planner: { directives: { persona: 'marketer' } } } },
      [
        {
          path: 'policies.persona',
          from: 'marketer',
          to: 'policies.planner.directives.persona',
          note: expect.any(String),
        },
      ],
    ],
    [
      'the same value on both sides',
      { policies: { variantCount: 2, planner: { topology: { variantCount: 2 } } } },
      { policies: { planner: { topology: { variantCount: 2 } } } },
      [
        {
          path: 'policies.variantCount',
          from: 2,
          to: 'policies.planner.topology.variantCount',
          note: expect.any(String),
        },
      ],
    ],
    [
      'requiresHitlApproval: true',
      { policies: { requiresHitlApproval: true } },
      {
        policies: {
          runtime: [
            {
              id: 'legacy_requires_hitl_approval',
              trigger: { kind: 'onNodeComplete', selector: { kind: 'execution' } },
              action: { type: 'hitl', rationale: expect.any(String) },
            },
          ],
        },
      },
      [
        {
          path: 'policies.requiresHitlApproval',
          from: true,
          to: 'policies.runtime[0]',
          note: expect.any(String),
        },
      ],
    ],
    [
      'requiresHitlApproval: false',
      { policies: { requiresHitlApproval: false } },
      { policies: {} },
      [{ path: 'policies.requiresHitlApproval', from: false, note: expect.stringMatching(/dropped/) }],
    ],
    [
      'hitlRequiredFor: []',
      { policies: { hitlRequiredFor: [] } },
      { policies: {} },
      [{ path: 'policies.hitlRequiredFor', from: [], note: expect.stringMatching(/dropped/) }],
    ],
    [
      'outputContract.mode: json_schema',
      { outputContract: { mode: 'json_schema', schema: { type: 'object' } } },
      { outputContract: { schema: { type: 'object' } } },
      [{ path: 'outputContract.mode', from: 'json_schema', note: expect.stringMatching(/dropped/) }],
    ],
    [
      'trigger.nodeId',
      { policies: { runtime: [policy({ trigger: { kind: 'onValidationFail', nodeId: 'publish-1' } })] } },
      {
        policies: {
          runtime: [policy({ trigger: { kind: 'onValidationFail', selector: { nodeId: 'publish-1' } } })],
        },
      },
      [
        {
          path: 'policies.runtime[0].trigger.nodeId',
          from: 'publish-1',
          to: 'policies.runtime[0].trigger.selector.nodeId',
          note: expect.any(String),
        },
      ],
    ],
    [
      'a policy-level condition',
      { policies: { runtime: [policy({ condition: { '<': [{ var: 'qaFindings.overallScore' }, 0.6] } })] } },
      {
        policies: {
          runtime: [
            policy({
              trigger: {
                kind: 'onNodeComplete',
                condition: { '<': [{ var: 'qaFindings.overallScore' }, 0.6] },
              },
            }),
          ],
        },
      },
      [
        {
          path: 'policies.runtime[0].condition',
          from: { '<': [{ var: 'qaFindings.overallScore' }, 0.6] },
          to: 'policies.runtime[0].trigger.condition',
          note: expect.any(String),
        },
      ],
    ],
    [
      'between in a trigger condition',
      {
        policies: {
          runtime: [
            policy({
              trigger: { kind: 'onNodeComplete', condition: { and: [{ between: [{ var: 's' }, 1, 2] }] } },
            }),
          ],
        },
      },
      {
        policies: {
          runtime: [
            policy({
              trigger: { kind: 'onNodeComplete', condition: { and: [{ '<=': [1, { var: 's' }, 2] }] } },
            }),
          ],
        },
      },
      [
        {
          path: 'policies.runtime[0].trigger.condition.and[0]',
          from: { between: [{ var: 's' }, 1, 2] },
          to: 'policies.runtime[0].trigger.condition.and[0]',
          note: expect.stringMatching(/between/),
        },
      ],
    ],
    [
      'between in a constraint',
      {
        outputContract: {
          schema: { type: 'object' },
          constraints: [{ expr: { between: [{ var: 'n' }, 1, 2] }, level: 'soft' }],
        },
      },
      {
        outputContract: {
          schema: { type: 'object' },
          constraints: [{ expr: { '<=': [1, { var: 'n' }, 2] }, level: 'soft' }],
        },
      },
      [
        {
          path: 'outputContract.constraints[0].expr',
          from: { between: [{ var: 'n' }, 1, 2] },
          to: 'outputContract.constraints[0].expr',
          note: expect.stringMatching(/between/),
        },
      ],
    ],
  ])('%s', (_name, patch, expected, changes) => {
    const result = accept({ ...base(), ...patch });
    expect(result.envelope).toEqual({ ...base(), inputs: {}, ...expected });
    expect(result.changes).toEqual(changes);
  });

  it.each<[string, { kind?: string; capabilityId?: string }]>([
    ['final_publish', { kind: 'execution' }],
    ['validation', { kind: 'validation' }],
    ['structuring', { kind: 'structuring' }],
    ['QualityAssuranceAgent.contentReview', { capabilityId: 'QualityAssuranceAgent.contentReview' }],
  ])('hitlRequiredFor "%s" becomes a hitl policy on onNodeComplete with selector %j', (entry, selector) => {
    const result = accept({ ...base(), policies: { runtime: [policy()], hitlRequiredFor: [entry] } });
    expect(result.envelope.policies?.runtime?.[1]).toEqual({
      id: `legacy_hitl_required_for_${entry}`,
      trigger: { kind: 'onNodeComplete', selector },
      action: { type: 'hitl', rationale: expect.any(String) },
    });
    expect(result.changes).toEqual([
      {
        path: 'policies.hitlRequiredFor[0]',
        from: entry,
        to: 'policies.runtime[1]',
        note: expect.any(String),
      },
    ]);
  });

  it('reports a duplicate hitlRequiredFor entry once', () => {
    const result = accept({ ...base(), policies: { hitlRequiredFor: ['final_publish', 'final_publish'] } });
    expect(result.envelope.policies?.runtime).toHaveLength(1);
    expect(result.changes.map((c) => c.path)).toEqual([
      'policies.hitlRequiredFor[0]',
      'policies.hitlRequiredFor[1]',
    ]);
  });

  it('leaves a canonical envelope unchanged and reports nothing', () => {
    const canonical = {
      ...base(),
      inputs: { channel: 'linkedin' },
      policies: {
        planner: { topology: { variantCount: 2 } },
        runtime: [policy({ trigger: { kind: 'onNodeComplete', selector: { kind: 'validation' } } })],
      },
      metadata: { anything: { goes: [1, 'two'] } },
      threadId: 'thread-1',
    };
    expect(accept(canonical)).toEqual({ ok: true, envelope: canonical, changes: [], secrets: [] });
  });

  it('never modifies its input', () => {
    const raw = {
      ...base(),
      policies: { variantCount: 2, runtime: [policy({ condition: { between: [{ var: 'x' }, 1, 2] } })] },
    };
    const before = structuredClone(raw);
    accept(raw);
    expect(raw).toEqual(before);
  });
});

describe('normalizeEnvelope: an issue in a moved legacy field is named where the caller wrote it', () => {
  const refuse = (raw: unknown) => {
    const result = normalizeEnvelope(raw);
    if (result.ok) throw new Error('accepted');
    return result.errors;
  };

  it.each<[string, Record<string, unknown>, string]>([
    [
      'a policy-level condition with a forbidden operator',
      policy({ condition: { method: [{ var: 'x' }, 'toString'] } }),
      'policies.runtime[0].condition.method',
    ],
    [
      'a policy-level condition naming __proto__',
      policy({ condition: { '==': [{ var: '__proto__.x' }, 1] } }),
      'policies.runtime[0].condition["=="][0].var',
    ],
    [
      'a trigger.nodeId that is not an identifier',
      policy({ trigger: { kind: 'onNodeComplete', nodeId: 'not an id!' } }),
      'policies.runtime[0].trigger.nodeId',
    ],
  ])('%s', (_label, runtimePolicy, path) => {
    const errors = refuse({ ...base(), policies: { runtime: [runtimePolicy] } });
    expect(errors.map((e) => e.path)).toContain(path);
    expect(errors.every((e) => !e.path.includes('trigger.condition') && !e.path.includes('selector'))).toBe(
      true,
    );
  });

  it('names the canonical place when the caller wrote the canonical shape', () => {
    const errors = refuse({
      ...base(),
      policies: {
        runtime: [policy({ trigger: { kind: 'onNodeComplete', condition: { method: [1, 'x'] } } })],
      },
    });
    expect(errors.map((e) => e.path)).toContain('policies.runtime[0].trigger.condition.method');
  });
});
