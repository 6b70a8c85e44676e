import { ACTION_TYPES } from '../envelope/action';
import { LIMITS } from '../shared/limits';
import { isPlainObject } from '../shared/plain-object';
import type { NormalizeContext } from './normalize-context';

const REPLAN_HINT =
  'goto was removed: flow changes need a new plan, so request {"type": "replan", "rationale": "…"}';
const LEGACY_VERBS: Record<string, string> = { hitl_pause: 'hitl', fail_run: 'fail' };

/**
 * Rejects removed and unknown action verbs with migration hints, walking nested `hitl`
 * follow-ups. Valid actions are left for the schema to check.
 */
export function rejectLegacyActions(
  action: unknown,
  path: PropertyKey[],
  ctx: NormalizeContext,
  depth = 1,
): void {
  if (!isPlainObject(action) || typeof action.type !== 'string' || depth > LIMITS.actionMaxDepth + 1) return;
  const type = action.type;
  const at = [...path, 'type'];
  if (type === 'goto') {
    ctx.reject(
      at,
      'removed_action',
      'action "goto" was removed: policies never re-route a validated plan',
      REPLAN_HINT,
      path,
    );
  } else if (type in LEGACY_VERBS) {
    ctx.reject(
      at,
      'legacy_action',
      `action "${type}" is a legacy verb`,
      `use "${LEGACY_VERBS[type]}" instead of "${type}"`,
      path,
    );
  } else if (!(ACTION_TYPES as readonly string[]).includes(type)) {
    ctx.reject(
      at,
      'unknown_action',
      `unknown action type "${type}"`,
      `valid action types: ${ACTION_TYPES.join(', ')}`,
      path,
    );
  } else if (type === 'hitl') {
    for (const key of ['approveAction', 'rejectAction'])
      rejectLegacyActions(action[key], [...path, key], ctx, depth + 1);
  }
}
