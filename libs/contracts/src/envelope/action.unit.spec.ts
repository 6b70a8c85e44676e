import { LIMITS } from '../shared/limits';
import { ActionSchema, type Action } from './action';

/** A hitl chain `levels` deep whose innermost action is `leaf`. */
function chain(levels: number, leaf: Action = { type: 'fail' }): Action {
  return levels === 1
    ? leaf
    : { type: 'hitl', rationale: `level ${levels}`, approveAction: chain(levels - 1, leaf) };
}

describe('ActionSchema', () => {
  it.each<[string, unknown]>([
    ['replan', { type: 'replan', rationale: 'Low QA score' }],
    [
      'hitl with follow-ups',
      {
        type: 'hitl',
        rationale: 'check',
        approveAction: { type: 'replan' },
        rejectAction: { type: 'fail', message: 'no' },
      },
    ],
    ['fail', { type: 'fail' }],
    ['pause', { type: 'pause', reason: 'brand risk' }],
    ['emit with a payload', { type: 'emit', event: 'quality.alert', payload: { score: 0.4, tags: ['a'] } }],
  ])('accepts %s', (_name, action) => {
    expect(ActionSchema.parse(action)).toEqual(action);
  });

  it.each<[string, unknown, string]>([
    ['goto', { type: 'goto', next: 'x' }, 'type'],
    ['a legacy verb', { type: 'hitl_pause' }, 'type'],
    ['an unknown field', { type: 'fail', retries: 2 }, ''],
    ['emit without an event', { type: 'emit' }, 'event'],
    ['a non-JSON emit payload', { type: 'emit', event: 'e', payload: { at: new Date(0) } }, 'payload.at'],
    ['a bad nested action', { type: 'hitl', rejectAction: { type: 'goto' } }, 'rejectAction.type'],
  ])('rejects %s', (_name, action, path) => {
    const result = ActionSchema.safeParse(action);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toContain(path);
  });

  it.each(Array.from({ length: LIMITS.actionMaxDepth }, (_, i) => i + 1))(
    'accepts nesting %i levels deep',
    (levels) => {
      expect(ActionSchema.safeParse(chain(levels)).success).toBe(true);
    },
  );

  it('rejects one level more, at the offending action', () => {
    const result = ActionSchema.safeParse(chain(LIMITS.actionMaxDepth + 1));
    const path = Array.from({ length: LIMITS.actionMaxDepth }, () => 'approveAction');
    expect(result.error?.issues).toEqual([
      expect.objectContaining({ path, message: expect.stringMatching(/nest at most/) }),
    ]);
  });

  it('survives hostile nesting without recursing through it', () => {
    expect(ActionSchema.safeParse(chain(5_000)).success).toBe(false);
  });
});
