import {
  PLAN_NODE_KINDS,
  type CapabilityRegistration,
  type DiagnosticsBundle,
  type PlanDiagnostic,
  type PlanNodeKind,
  type PlannerError,
  type TaskEnvelope,
} from '@flex/contracts';
import { matchesAny } from './capability-scoring';
import { plannerError } from './planner';
import { arrayBounds, type PlanShape } from './plan-shape';
import { constraintRoots } from './targets';

export type Revision = { ok: true; shape: PlanShape; actions: string[] } | { ok: false; error: PlannerError };

// Structural findings a fresh rule-based draft never repeats (the previous draft may have come from an LLM).
const FRESH_DRAFT_FIXES = new Set([
  'duplicate_node',
  'dangling_edge',
  'dangling_fallback',
  'cycle',
  'empty_plan',
  'node_incomplete',
  'unreachable',
  'facet_direction',
  'unknown_facet',
  'derived_agent',
  'derived_facets',
]);

/**
 * Act on the validator's diagnostics (spec 000 §5.9.2 step 5) instead of retrying blindly: insert
 * the producer or enforcer a diagnostic names, drop a forbidden kind, add a required one, reconcile
 * the variant count with the schema. A hard finding nothing here can act on, or a revision that
 * contradicts itself, is PLANNER_UNRESOLVABLE: the run fails with the reason instead of looping.
 */
export function reviseShape(
  shape: PlanShape,
  bundle: DiagnosticsBundle | undefined,
  envelope: TaskEnvelope,
  capabilities: readonly CapabilityRegistration[],
): Revision {
  const next: PlanShape = structuredClone(shape);
  const actions: string[] = [];
  const unresolved: PlanDiagnostic[] = [];
  for (const d of bundle?.failures ?? []) {
    if (d.status !== 'unsatisfied') continue;
    const action = act(next, d, envelope, capabilities);
    if (action) actions.push(action);
    else unresolved.push(d);
  }
  if (unresolved.length > 0) {
    const reasons = unresolved.map(
      (d) => `${d.constraintId ?? d.cause}: ${d.constraint ?? d.suggestion ?? d.cause}`,
    );
    return {
      ok: false,
      error: plannerError('PLANNER_UNRESOLVABLE', `the planner cannot act on ${reasons.join('; ')}`, {
        unresolved: unresolved.map((d) => ({ ...d })),
      }),
    };
  }
  const conflict = conflictIn(next);
  if (conflict)
    return {
      ok: false,
      error: plannerError('PLANNER_UNRESOLVABLE', conflict.message, { ...conflict.details, actions }),
    };
  return { ok: true, shape: next, actions };
}

function act(
  shape: PlanShape,
  d: PlanDiagnostic,
  envelope: TaskEnvelope,
  capabilities: readonly CapabilityRegistration[],
): string | undefined {
  const check = checkOf(d);
  if (check && FRESH_DRAFT_FIXES.has(check)) return `fresh draft for ${check}`;
  if (check === 'input_coverage') {
    // Rule-based nodes only read inputs something supplies; a producer the validator names is inserted.
    if (d.capabilityId && capabilities.some((c) => c.capabilityId === d.capabilityId))
      add(shape.require, d.capabilityId);
    return `cover ${String(d.details?.facet ?? 'inputs')}${d.capabilityId ? ` with ${d.capabilityId}` : ' or drop it'}`;
  }
  if (check === 'policy_schema') return reconcileVariants(shape, envelope);
  if (check === 'capability_unavailable' && d.capabilityId) {
    if (!capabilities.some((c) => c.capabilityId === d.capabilityId)) add(shape.forbid, d.capabilityId);
    return `avoid unavailable ${d.capabilityId}`;
  }
  if (check === 'required_kind' || check === 'forbidden_kind') {
    const kind = kindOf(d);
    if (!kind) return undefined;
    add(check === 'required_kind' ? shape.requiredKinds : shape.forbiddenKinds, kind);
    return `${check === 'required_kind' ? 'add' : 'drop'} ${kind} node`;
  }
  if (check === 'max_depth') {
    add(shape.forbiddenKinds, 'branch');
    add(shape.forbiddenKinds, 'transformation');
    return 'flatten: no branch or transformation nodes';
  }
  if (d.cause === 'missing_producer' || d.cause === 'missing_enforcer')
    return insertProducer(shape, d, envelope, capabilities);
  if (d.cause === 'schema_incompatible' && mentionsVariants(d)) return reconcileVariants(shape, envelope);
  return undefined;
}

function insertProducer(
  shape: PlanShape,
  d: PlanDiagnostic,
  envelope: TaskEnvelope,
  capabilities: readonly CapabilityRegistration[],
): string | undefined {
  const named = d.capabilityId ?? capabilityIn(d.suggestion, capabilities);
  const facets = [
    ...facetsIn(d.details),
    ...(d.constraintId ? constraintRoots(envelope, d.constraintId) : []),
  ];
  if (named && capabilities.some((c) => matchesAny(c.capabilityId, [named]))) add(shape.require, named);
  else if (facets.length === 0) return undefined;
  for (const f of facets) add(shape.extraTargets, f);
  if (d.cause === 'missing_enforcer' && d.constraintId) add(shape.enforce, d.constraintId);
  return `insert ${named ?? 'a producer'} for ${facets.join(', ') || d.constraintId || d.cause}`;
}

function reconcileVariants(shape: PlanShape, envelope: TaskEnvelope): string | undefined {
  const bounds = Object.keys((envelope.outputContract.schema as { properties?: object }).properties ?? {})
    .map((p) => arrayBounds(envelope, p))
    .find((b) => b.min !== undefined || b.max !== undefined);
  if (!bounds) return undefined;
  const min = bounds.min ?? 1;
  const max = bounds.max ?? Math.max(min, shape.variantCount);
  if (min > max) return undefined;
  const before = shape.variantCount;
  shape.variantCount = Math.min(Math.max(before, min), max);
  return `variantCount ${before} → ${shape.variantCount} (schema allows ${min}..${max})`;
}

function conflictIn(shape: PlanShape): { message: string; details: Record<string, unknown> } | undefined {
  const kinds = shape.requiredKinds.filter((k) => shape.forbiddenKinds.includes(k));
  if (kinds.length)
    return { message: `the plan must both have and not have ${kinds.join(', ')} nodes`, details: { kinds } };
  const caps = shape.require.filter((c) => matchesAny(c, shape.forbid));
  if (caps.length)
    return { message: `${caps.join(', ')} is both required and forbidden`, details: { capabilities: caps } };
  return undefined;
}

function checkOf(d: PlanDiagnostic): string | undefined {
  const fromDetails = typeof d.details?.check === 'string' ? d.details.check : undefined;
  return (
    fromDetails ??
    (d.constraintId?.startsWith('structure.') ? d.constraintId.slice('structure.'.length) : undefined)
  );
}

function kindOf(d: PlanDiagnostic): PlanNodeKind | undefined {
  const candidates = [
    d.details?.kind,
    d.nodeId?.replace(/-\d+$/, ''),
    ...(`${d.constraint ?? ''} ${d.suggestion ?? ''}`.match(/[a-z]+/g) ?? []),
  ];
  return candidates.find(
    (c): c is PlanNodeKind => typeof c === 'string' && (PLAN_NODE_KINDS as readonly string[]).includes(c),
  );
}

function mentionsVariants(d: PlanDiagnostic): boolean {
  return /variant|minItems|maxItems/i.test(
    `${d.constraint ?? ''} ${d.suggestion ?? ''} ${JSON.stringify(d.details ?? {})}`,
  );
}

function facetsIn(details: Record<string, unknown> | undefined): string[] {
  const raw = [
    details?.facet,
    ...(Array.isArray(details?.facets) ? details.facets : []),
    ...(Array.isArray(details?.missingFacets) ? details.missingFacets : []),
  ];
  return raw.filter((f): f is string => typeof f === 'string');
}

function capabilityIn(
  text: string | undefined,
  capabilities: readonly CapabilityRegistration[],
): string | undefined {
  if (!text) return undefined;
  return capabilities.map((c) => c.capabilityId).find((id) => text.includes(id));
}

function add<T>(list: T[], value: T): void {
  if (!list.includes(value)) list.push(value);
}
