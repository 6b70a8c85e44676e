import { PLAN_NODE_KINDS } from '../plan/plan-node-kind';
import { IdentifierSchema } from '../shared/identifiers';
import { isPlainObject } from '../shared/plain-object';
import type { NormalizeContext } from './normalize-context';

const P = 'policies';

/**
 * Maps the legacy top-level policy fields of the spec's samples (`variantCount`, `brandVoice`,
 * `persona`, `requiresHitlApproval`, `hitlRequiredFor`) onto `planner` and `runtime`, in place.
 * New runtime policies go after the caller's, so the caller's indexes keep their meaning.
 */
export function migrateLegacyPolicies(policies: Record<string, unknown>, ctx: NormalizeContext): void {
  moveInto(policies, 'variantCount', ['topology'], ctx);
  moveInto(policies, 'brandVoice', ['directives'], ctx);
  moveInto(policies, 'persona', ['directives'], ctx);
  let next = Array.isArray(policies.runtime) ? policies.runtime.length : 0;
  const slot = (): PropertyKey[] => [P, 'runtime', next++];
  const added = [...requiresHitlApproval(policies, ctx, slot), ...hitlRequiredFor(policies, ctx, slot)];
  if (added.length === 0) return;
  if (policies.runtime === undefined) policies.runtime = [];
  if (Array.isArray(policies.runtime)) policies.runtime.push(...added);
}

function moveInto(
  policies: Record<string, unknown>,
  key: string,
  section: string[],
  ctx: NormalizeContext,
): void {
  if (!(key in policies)) return;
  const value = policies[key];
  policies.planner ??= {};
  let target: unknown = policies.planner;
  for (const part of section) {
    if (!isPlainObject(target)) return;
    target[part] ??= {};
    target = target[part];
  }
  if (!isPlainObject(target)) return;
  const to = [P, 'planner', ...section, key];
  if (key in target && target[key] !== value) {
    ctx.reject(
      [P, key],
      'legacy_conflict',
      `policies.${key} disagrees with ${to.join('.')}`,
      `keep only ${to.join('.')}`,
    );
    return;
  }
  target[key] = value;
  delete policies[key];
  ctx.change([P, key], `legacy policies.${key} moved`, { from: value, to });
}

function requiresHitlApproval(
  policies: Record<string, unknown>,
  ctx: NormalizeContext,
  slot: () => PropertyKey[],
): unknown[] {
  if (!('requiresHitlApproval' in policies)) return [];
  const value = policies.requiresHitlApproval;
  delete policies.requiresHitlApproval;
  if (typeof value !== 'boolean') {
    ctx.reject(
      [P, 'requiresHitlApproval'],
      'invalid_type',
      'policies.requiresHitlApproval must be a boolean',
    );
    return [];
  }
  if (!value) {
    ctx.change(
      [P, 'requiresHitlApproval'],
      'legacy requiresHitlApproval: false dropped (no approval gate is the default)',
      { from: false },
    );
    return [];
  }
  ctx.change(
    [P, 'requiresHitlApproval'],
    'legacy requiresHitlApproval: true became a hitl runtime policy on every execution node',
    {
      from: true,
      to: slot(),
    },
  );
  return [
    hitlPolicy(
      'legacy_requires_hitl_approval',
      { kind: 'execution' },
      'Legacy requiresHitlApproval: a human approves each execution output',
    ),
  ];
}

function hitlRequiredFor(
  policies: Record<string, unknown>,
  ctx: NormalizeContext,
  slot: () => PropertyKey[],
): unknown[] {
  if (!('hitlRequiredFor' in policies)) return [];
  const entries = policies.hitlRequiredFor;
  delete policies.hitlRequiredFor;
  if (!Array.isArray(entries)) {
    ctx.reject(
      [P, 'hitlRequiredFor'],
      'invalid_type',
      'policies.hitlRequiredFor must be an array of node kinds or capability ids',
    );
    return [];
  }
  if (entries.length === 0)
    ctx.change([P, 'hitlRequiredFor'], 'legacy hitlRequiredFor: [] dropped (no approval gates)', {
      from: [],
    });
  const out: unknown[] = [];
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    const at = [P, 'hitlRequiredFor', index];
    if (typeof entry !== 'string' || !IdentifierSchema.safeParse(entry).success) {
      ctx.reject(at, 'invalid_value', 'expected a node kind, "final_publish" or a capability id');
      return;
    }
    if (seen.has(entry)) {
      ctx.change(at, `duplicate hitlRequiredFor entry "${entry}" ignored`, { from: entry });
      return;
    }
    seen.add(entry);
    const [selector, rationale] = selectorFor(entry);
    const id =
      `legacy_hitl_required_for_${entry}`.length <= 128
        ? `legacy_hitl_required_for_${entry}`
        : `legacy_hitl_required_for_${index}`;
    ctx.change(
      at,
      `legacy hitlRequiredFor "${entry}" became a hitl runtime policy (${JSON.stringify(selector)})`,
      { from: entry, to: slot() },
    );
    out.push(hitlPolicy(id, selector, rationale));
  });
  return out;
}

function selectorFor(entry: string): [Record<string, string>, string] {
  if ((PLAN_NODE_KINDS as readonly string[]).includes(entry))
    return [{ kind: entry }, `Legacy hitlRequiredFor: a human approves each ${entry} node`];
  if (entry === 'final_publish')
    return [
      { kind: 'execution' },
      'Legacy hitlRequiredFor final_publish: a human approves the final copy before the run completes',
    ];
  return [{ capabilityId: entry }, `Legacy hitlRequiredFor: a human approves the output of ${entry}`];
}

function hitlPolicy(id: string, selector: Record<string, string>, rationale: string) {
  return { id, trigger: { kind: 'onNodeComplete', selector }, action: { type: 'hitl', rationale } };
}
