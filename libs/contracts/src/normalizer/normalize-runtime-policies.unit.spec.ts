import { normalizeRuntimePolicies } from './normalize-runtime-policies';

describe('normalizeRuntimePolicies (a candidate policy set for policy what-if)', () => {
  it('accepts canonical policies and migrates legacy shapes as the envelope normalizer does', () => {
    const raw = {
      runtime: [
        { id: 'a', trigger: { kind: 'onStart' }, action: { type: 'hitl' } },
        { id: 'b', trigger: { kind: 'onNodeComplete', nodeId: 'n1' }, action: { type: 'emit', event: 'e' } },
      ],
    };
    const before = JSON.stringify(raw);
    const result = normalizeRuntimePolicies(raw);
    expect(result).toEqual({
      ok: true,
      runtime: [
        raw.runtime[0],
        {
          id: 'b',
          trigger: { kind: 'onNodeComplete', selector: { nodeId: 'n1' } },
          action: { type: 'emit', event: 'e' },
        },
      ],
    });
    expect(JSON.stringify(raw)).toBe(before);
  });

  it.each([
    [[], '', 'invalid_type'],
    [{}, 'runtime', 'required'],
    [{ runtime: [], planner: {} }, 'planner', 'unknown_field'],
    [
      { runtime: [{ id: 'a', trigger: { kind: 'onStart' }, action: { type: 'goto' } }] },
      'runtime[0].action.type',
      undefined,
    ],
    [
      { runtime: [{ id: 'a', trigger: { kind: 'soon' }, action: { type: 'fail' } }] },
      'runtime[0].trigger.kind',
      undefined,
    ],
    [
      {
        runtime: [
          { id: 'a', trigger: { kind: 'onStart' }, action: { type: 'fail' } },
          { id: 'a', trigger: { kind: 'manual' }, action: { type: 'fail' } },
        ],
      },
      'runtime[1].id',
      'duplicate',
    ],
    [
      // A legacy policy-level condition, refused where it was written, not in the trigger it moves to.
      {
        runtime: [
          {
            id: 'a',
            trigger: { kind: 'onNodeComplete' },
            condition: { method: [1, 'toString'] },
            action: { type: 'fail' },
          },
        ],
      },
      'runtime[0].condition.method',
      undefined,
    ],
  ])('refuses %j naming %s', (raw, path, code) => {
    const result = normalizeRuntimePolicies(raw);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toMatchObject({ path, ...(code ? { code } : {}) });
  });
});
