import { NODE_TRIGGER_KINDS } from '../envelope/policy-trigger';
import { rewriteBetween } from '../jsonlogic/between-rewrite';
import { isPlainObject } from '../shared/plain-object';
import { rejectLegacyActions } from './legacy-actions';
import type { NormalizeContext } from './normalize-context';

const BETWEEN_NOTE = 'legacy JSONLogic "between" rewritten as the inclusive {"<=": [low, value, high]}';

/**
 * Brings one runtime policy to the canonical shape in place: `trigger.nodeId` →
 * `trigger.selector.nodeId`, a policy-level `condition` → `trigger.condition`, `between` →
 * `<=`; rejects `selector.relation` and removed or unknown action verbs.
 */
export function migrateRuntimePolicy(policy: unknown, path: PropertyKey[], ctx: NormalizeContext): void {
  if (!isPlainObject(policy)) return;
  const trigger = isPlainObject(policy.trigger) ? policy.trigger : undefined;
  const nodeTrigger =
    trigger !== undefined && (NODE_TRIGGER_KINDS as readonly unknown[]).includes(trigger.kind);
  if (trigger && nodeTrigger) moveTriggerNodeId(trigger, [...path, 'trigger'], ctx);
  if ('condition' in policy) moveCondition(policy, trigger, nodeTrigger, path, ctx);
  if (trigger && isPlainObject(trigger.selector) && 'relation' in trigger.selector) {
    ctx.reject(
      [...path, 'trigger', 'selector', 'relation'],
      'removed_field',
      'selector.relation was removed with goto: selectors name nodes statically',
      'select by nodeId, kind or capabilityId; to change the flow, use a replan action',
    );
  }
  if (trigger && 'condition' in trigger)
    trigger.condition = rewriteRule(trigger.condition, [...path, 'trigger', 'condition'], ctx);
  rejectLegacyActions(policy.action, [...path, 'action'], ctx);
}

function moveTriggerNodeId(trigger: Record<string, unknown>, at: PropertyKey[], ctx: NormalizeContext): void {
  if (!('nodeId' in trigger)) return;
  const nodeId = trigger.nodeId;
  const selector = trigger.selector ?? {};
  if (!isPlainObject(selector)) return;
  if ('nodeId' in selector && selector.nodeId !== nodeId) {
    ctx.reject(
      [...at, 'nodeId'],
      'legacy_conflict',
      'trigger.nodeId and trigger.selector.nodeId disagree',
      'keep only trigger.selector.nodeId',
    );
    return;
  }
  trigger.selector = { ...selector, nodeId };
  delete trigger.nodeId;
  ctx.change([...at, 'nodeId'], 'legacy trigger.nodeId moved into the node selector', {
    from: nodeId,
    to: [...at, 'selector', 'nodeId'],
  });
}

function moveCondition(
  policy: Record<string, unknown>,
  trigger: Record<string, unknown> | undefined,
  nodeTrigger: boolean,
  path: PropertyKey[],
  ctx: NormalizeContext,
): void {
  const at = [...path, 'condition'];
  if (!trigger || !nodeTrigger) {
    ctx.reject(
      at,
      'condition_not_supported',
      'a condition applies only to onNodeComplete and onValidationFail triggers',
      'remove the condition or use a node trigger',
    );
    return;
  }
  if ('condition' in trigger) {
    ctx.reject(
      at,
      'legacy_conflict',
      'both the policy and its trigger carry a condition',
      'keep only trigger.condition',
    );
    return;
  }
  trigger.condition = policy.condition;
  delete policy.condition;
  ctx.change(at, 'legacy policy-level condition moved into the trigger', {
    from: trigger.condition,
    to: [...path, 'trigger', 'condition'],
  });
}

/** Applies the `between` rewrite to a JSONLogic rule, reporting each one. */
export function rewriteRule(rule: unknown, at: PropertyKey[], ctx: NormalizeContext): unknown {
  const rewrites: Array<{ path: PropertyKey[]; from: unknown }> = [];
  const out = rewriteBetween(rule, rewrites);
  for (const r of rewrites)
    ctx.change([...at, ...r.path], BETWEEN_NOTE, { from: r.from, to: [...at, ...r.path] });
  return out;
}
