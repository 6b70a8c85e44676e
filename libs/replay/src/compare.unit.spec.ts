import { firstDifference, IdMap } from './compare';
import { stream } from './replay.spec-helper';

const UUID_A = 'aaaaaaaa-0000-4000-8000-000000000001';
const UUID_B = 'bbbbbbbb-0000-4000-8000-000000000002';
const UUID_C = 'cccccccc-0000-4000-8000-000000000003';

describe('firstDifference: canonical JSON, modulo ids', () => {
  const ids = () => new IdMap((v) => `00000000-0000-4000-8000-${String(v).padStart(12, '0')}`);

  it('ignores key order, -0 and undefined members; names the first differing field by JSON Pointer', () => {
    const [recorded] = stream(['policy_triggered', { b: 1, a: { x: [1, 0], 'k/~': 'v' } }]);
    expect(
      firstDifference(
        { type: 'policy_triggered', payload: { a: { 'k/~': 'v', x: [1, -0] }, b: 1, c: undefined } },
        recorded,
        ids(),
      ),
    ).toBeUndefined();
    expect(
      firstDifference(
        { type: 'policy_triggered', payload: { a: { 'k/~': 'w', x: [1, 0] }, b: 1 } },
        recorded,
        ids(),
      ),
    ).toEqual({
      path: '/payload/a/k~1~0',
      recorded: 'v',
      now: 'w',
    });
    expect(
      firstDifference(
        { type: 'policy_triggered', payload: { a: { 'k/~': 'v', x: [1] }, b: 1 } },
        recorded,
        ids(),
      ),
    ).toEqual({
      path: '/payload/a/x/1',
      recorded: 0,
      now: undefined,
    });
    expect(firstDifference({ type: 'custom_event', payload: recorded.payload }, recorded, ids())?.path).toBe(
      '/type',
    );
  });

  it('maps an id decided in the same step (decided-<version>-<i>) to the recorded event at that version', () => {
    const [recorded] = stream(['hitl_resolved', { effectiveAt: '00000000-0000-4000-8000-000000000007' }]);
    expect(
      firstDifference({ type: 'hitl_resolved', payload: { effectiveAt: 'decided-7-0' } }, recorded, ids()),
    ).toBeUndefined();
    expect(
      firstDifference({ type: 'hitl_resolved', payload: { effectiveAt: 'decided-8-0' } }, recorded, ids()),
    ).toMatchObject({
      path: '/payload/effectiveAt',
    });
  });

  it('maps generated UUIDs in order of first appearance, one to one', () => {
    const map = ids();
    expect(map.same(UUID_A, UUID_B)).toBe(true);
    expect(map.same(UUID_A, UUID_B)).toBe(true);
    expect(map.same(UUID_A, UUID_C)).toBe(false);
    expect(map.same(UUID_C, UUID_B)).toBe(false);
    expect(map.same('not-an-id', UUID_B)).toBe(false);
  });
});
