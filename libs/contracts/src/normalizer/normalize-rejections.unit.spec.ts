import { LIMITS } from '../shared/limits';
import { normalizeEnvelope } from './normalize-envelope';

const base = () => ({
  objective: 'Write two LinkedIn posts',
  outputContract: { schema: { type: 'object' } },
});
const withRuntime = (...runtime: unknown[]) => ({ ...base(), policies: { runtime } });
const policy = (extra: Record<string, unknown> = {}) => ({
  id: 'p',
  trigger: { kind: 'onNodeComplete' },
  action: { type: 'replan' },
  ...extra,
});

function refuse(raw: unknown) {
  const result = normalizeEnvelope(raw);
  if (result.ok) throw new Error('expected a refusal');
  return result.errors;
}

interface Expected {
  path: string;
  code: string;
  hint?: RegExp;
}

describe('normalizeEnvelope: refusals name the path, and hint at the fix when there is one', () => {
  it.each<[string, unknown, Expected[]]>([
    [
      'goto',
      withRuntime(policy({ action: { type: 'goto', next: 'node-1' } })),
      [{ path: 'policies.runtime[0].action.type', code: 'removed_action', hint: /replan/ }],
    ],
    [
      'hitl_pause',
      withRuntime(policy({ action: { type: 'hitl_pause' } })),
      [{ path: 'policies.runtime[0].action.type', code: 'legacy_action', hint: /"hitl"/ }],
    ],
    [
      'fail_run',
      withRuntime(policy({ action: { type: 'fail_run', message: 'x' } })),
      [{ path: 'policies.runtime[0].action.type', code: 'legacy_action', hint: /"fail"/ }],
    ],
    [
      'an unknown action type',
      withRuntime(policy({ action: { type: 'retry' } })),
      [
        {
          path: 'policies.runtime[0].action.type',
          code: 'unknown_action',
          hint: /replan, hitl, fail, pause, emit/,
        },
      ],
    ],
    [
      'goto nested in a hitl follow-up',
      withRuntime(
        policy(),
        policy({ id: 'q', action: { type: 'hitl', rejectAction: { type: 'goto', next: 'x' } } }),
      ),
      [{ path: 'policies.runtime[1].action.rejectAction.type', code: 'removed_action', hint: /replan/ }],
    ],
    [
      'selector.relation',
      withRuntime(
        policy({ trigger: { kind: 'onNodeComplete', selector: { relation: { direction: 'previous' } } } }),
      ),
      [
        {
          path: 'policies.runtime[0].trigger.selector.relation',
          code: 'removed_field',
          hint: /nodeId, kind or capabilityId/,
        },
      ],
    ],
    [
      'a condition on a trigger that cannot take one',
      withRuntime(policy({ trigger: { kind: 'onTimeout', ms: 1000 }, condition: { '==': [1, 1] } })),
      [{ path: 'policies.runtime[0].condition', code: 'condition_not_supported' }],
    ],
    [
      'a condition on both policy and trigger',
      withRuntime(
        policy({
          trigger: { kind: 'onNodeComplete', condition: { '==': [1, 1] } },
          condition: { '==': [2, 2] },
        }),
      ),
      [{ path: 'policies.runtime[0].condition', code: 'legacy_conflict' }],
    ],
    [
      'trigger.nodeId disagreeing with the selector',
      withRuntime(policy({ trigger: { kind: 'onNodeComplete', nodeId: 'a', selector: { nodeId: 'b' } } })),
      [{ path: 'policies.runtime[0].trigger.nodeId', code: 'legacy_conflict' }],
    ],
    [
      'trigger.nodeId on a trigger without selectors',
      withRuntime(policy({ trigger: { kind: 'onStart', nodeId: 'a' } })),
      [{ path: 'policies.runtime[0].trigger.nodeId', code: 'unknown_field' }],
    ],
    [
      'a legacy field disagreeing with the canonical one',
      { ...base(), policies: { variantCount: 2, planner: { topology: { variantCount: 3 } } } },
      [{ path: 'policies.variantCount', code: 'legacy_conflict' }],
    ],
    [
      'outputContract.mode other than json_schema',
      { ...base(), outputContract: { mode: 'text', schema: {} } },
      [{ path: 'outputContract.mode', code: 'unsupported_output_mode', hint: /JSON Schema/ }],
    ],
    [
      'a non-boolean requiresHitlApproval',
      { ...base(), policies: { requiresHitlApproval: 'yes' } },
      [{ path: 'policies.requiresHitlApproval', code: 'invalid_type' }],
    ],
    [
      'a bad hitlRequiredFor entry',
      { ...base(), policies: { hitlRequiredFor: ['final_publish', 'has spaces'] } },
      [{ path: 'policies.hitlRequiredFor[1]', code: 'invalid_value' }],
    ],
    [
      'an unknown top-level field',
      { ...base(), priority: 'high' },
      [{ path: 'priority', code: 'unknown_field' }],
    ],
    [
      'an unknown policies field',
      { ...base(), policies: { branchVariants: 2 } },
      [{ path: 'policies.branchVariants', code: 'unknown_field' }],
    ],
    [
      'an unknown selector field',
      withRuntime(policy({ trigger: { kind: 'onNodeComplete', selector: { role: 'x' } } })),
      [{ path: 'policies.runtime[0].trigger.selector.role', code: 'unknown_field' }],
    ],
    [
      'an unknown trigger kind',
      withRuntime(policy({ trigger: { kind: 'onTick' } })),
      [{ path: 'policies.runtime[0].trigger.kind', code: 'invalid_value' }],
    ],
    ['a missing objective', { outputContract: { schema: {} } }, [{ path: 'objective', code: 'required' }]],
    ['a blank objective', { ...base(), objective: '   ' }, [{ path: 'objective', code: 'too_small' }]],
    ['a missing output contract', { objective: 'x' }, [{ path: 'outputContract', code: 'required' }]],
    [
      'duplicate policy ids',
      withRuntime(policy(), policy()),
      [{ path: 'policies.runtime[1].id', code: 'duplicate' }],
    ],
    [
      'duplicate constraint ids',
      {
        ...base(),
        outputContract: {
          schema: {},
          constraints: [
            { constraintId: 'c', expr: { '==': [1, 1] }, level: 'hard' },
            { constraintId: 'c', expr: { '==': [1, 1] }, level: 'soft' },
          ],
        },
      },
      [{ path: 'outputContract.constraints[1].constraintId', code: 'duplicate' }],
    ],
    [
      'method in a condition',
      withRuntime(
        policy({
          trigger: { kind: 'onNodeComplete', condition: { or: [{ method: [{ var: 'a' }, 'toString'] }] } },
        }),
      ),
      [
        {
          path: 'policies.runtime[0].trigger.condition.or[0].method',
          code: 'jsonlogic_operator_not_allowed',
          hint: /never allowed/,
        },
      ],
    ],
    [
      'a __proto__ var in a constraint',
      {
        ...base(),
        outputContract: {
          schema: {},
          constraints: [{ expr: { '==': [{ var: 'a.__proto__' }, 1] }, level: 'hard' }],
        },
      },
      [{ path: 'outputContract.constraints[0].expr["=="][0].var', code: 'jsonlogic_forbidden_path' }],
    ],
    [
      'variantCount out of range',
      { ...base(), policies: { variantCount: 51 } },
      // Where the caller wrote it, though it is checked where the normalizer moved it.
      [{ path: 'policies.variantCount', code: 'too_big' }],
    ],
    [
      'an action nested too deep',
      withRuntime(policy({ action: nestedHitl(LIMITS.actionMaxDepth + 1) })),
      [
        {
          path: `policies.runtime[0].action${'.approveAction'.repeat(LIMITS.actionMaxDepth)}`,
          code: 'action_too_deep',
        },
      ],
    ],
  ])('%s', (_name, raw, expected) => {
    const errors = refuse(raw);
    expect(errors.map(({ path, code }) => ({ path, code }))).toEqual(
      expected.map(({ path, code }) => ({ path, code })),
    );
    expected.forEach((e, i) => e.hint && expect(errors[i].hint).toMatch(e.hint));
  });

  it('reports every problem at once', () => {
    const errors = refuse({
      ...withRuntime(policy({ action: { type: 'goto' } }), policy({ id: 'q', action: { type: 'fail_run' } })),
      colour: 'red',
    });
    expect(errors.map((e) => e.path)).toEqual([
      'policies.runtime[0].action.type',
      'policies.runtime[1].action.type',
      'colour',
    ]);
  });
});

function nestedHitl(levels: number): unknown {
  return levels === 1 ? { type: 'fail' } : { type: 'hitl', approveAction: nestedHitl(levels - 1) };
}

describe('normalizeEnvelope: limits and hostile input', () => {
  const deep = (levels: number): unknown => (levels === 0 ? 1 : { a: deep(levels - 1) });

  it.each<[string, unknown, string, string]>([
    ['null', null, '', 'invalid_type'],
    ['an array', [base()], '', 'invalid_type'],
    ['a string', 'objective', '', 'invalid_type'],
    [
      'nesting beyond the JSON cap',
      { ...base(), inputs: deep(10_000) },
      `inputs${'.a'.repeat(LIMITS.jsonMaxDepth - 1)}`,
      'too_deep',
    ],
    ['a Date inside', { ...base(), inputs: { at: new Date(0) } }, 'inputs.at', 'not_json'],
    ['a bigint inside', { ...base(), metadata: { n: BigInt(1) } }, 'metadata.n', 'not_json'],
    ['a NaN inside', { ...base(), inputs: { n: NaN } }, 'inputs.n', 'not_json'],
    [
      'a __proto__ key',
      JSON.parse('{"objective":"x","outputContract":{"schema":{}},"inputs":{"__proto__":{"p":1}}}'),
      'inputs.__proto__',
      'not_json',
    ],
    [
      'an envelope over the size cap',
      { ...base(), inputs: { blob: 'x'.repeat(LIMITS.envelopeMaxBytes) } },
      '',
      'envelope_too_large',
    ],
    [
      'an output schema over the depth cap',
      { ...base(), outputContract: { schema: deep(LIMITS.schemaMaxDepth + 1) } },
      'outputContract.schema',
      'schema_too_deep',
    ],
    [
      'an objective over the length cap',
      { ...base(), objective: 'x'.repeat(LIMITS.objectiveMaxLength + 1) },
      'objective',
      'too_big',
    ],
  ])('refuses %s without throwing', (_name, raw, path, code) => {
    expect(refuse(raw)).toEqual([expect.objectContaining({ path, code })]);
  });

  it.each([
    ['a NUL in the objective', { ...base(), objective: 'Write\u0000 posts' }, 'objective'],
    ['a lone surrogate in an input', { ...base(), inputs: { note: 'cut \uD83D' } }, 'inputs.note'],
    ['a NUL in an input key', { ...base(), inputs: { ['a\u0000b']: 1 } }, 'inputs["a\\u0000b"]'],
  ])('refuses text Postgres cannot store (%s), naming the path', (_name, raw, path) => {
    expect(refuse(raw)).toEqual([expect.objectContaining({ path, code: 'unstorable_text' })]);
  });

  it('refuses a cycle without throwing', () => {
    const raw: Record<string, unknown> = { ...base() };
    raw.inputs = { self: raw };
    expect(refuse(raw)).toEqual([expect.objectContaining({ path: 'inputs.self', code: 'not_json' })]);
  });

  it('accepts an output schema exactly at the depth cap', () => {
    expect(normalizeEnvelope({ ...base(), outputContract: { schema: deep(LIMITS.schemaMaxDepth) } }).ok).toBe(
      true,
    );
  });
});
