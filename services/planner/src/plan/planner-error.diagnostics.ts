import {
  bundleDiagnostics,
  getFacetCatalog,
  IdentifierSchema,
  PlanDiagnosticSchema,
  type DiagnosticsBundle,
  type PlanDiagnostic,
  type PlannerError,
  type TaskEnvelope,
} from '@flex/contracts';
import { matchesAny } from './capability-scoring';
import { constraintsWithRoots, schemaProperties, VALIDATION_FACETS } from './targets';

/** A capability as the registry knows it: its status and what it produces. */
export interface KnownCapability {
  capabilityId: string;
  status: 'active' | 'inactive' | 'deregistered';
  outputContract: readonly string[];
}

interface Context {
  envelope: TaskEnvelope;
  known: readonly KnownCapability[];
}

type Finding = Omit<PlanDiagnostic, 'severity' | 'status'>;

/**
 * The diagnostics of a planning failure, in the one bundle shape: a hard, unsatisfied failure per
 * thing the planner could not find (a facet no active capability produces, with where the contract
 * asks for it; a required capability that is not there; a node kind no capability can fill), each
 * with what to change. A capability that would do but is inactive or excluded by the caller's
 * policy is named in the suggestion. There is no plan, so nothing is satisfiable: the score is 0.
 */
export function plannerErrorDiagnostics(
  error: PlannerError,
  envelope: TaskEnvelope,
  known: readonly KnownCapability[] = [],
): DiagnosticsBundle {
  const context = { envelope, known };
  const specific = [
    ...unresolvedOf(error),
    ...listOf(error.details.missingRequired).map((id) => missingCapability(id, context)),
    ...listOf(error.details.missingFacets).map((facet) => missingFacet(facet, context)),
    ...listOf(error.details.requiredKinds).map((kind) => missingKind(kind, context)),
  ];
  const findings = specific.length > 0 ? specific : [generic(error, context)];
  const failures = findings.map((f): PlanDiagnostic => ({ severity: 'hard', status: 'unsatisfied', ...f }));
  return bundleDiagnostics(failures.sort(byConstraintId), 0);
}

/** PLANNER_UNRESOLVABLE names the validator findings it could not act on: they are the failures. */
function unresolvedOf(error: PlannerError): Finding[] {
  const raw = Array.isArray(error.details.unresolved) ? error.details.unresolved : [];
  return raw.flatMap((d) => {
    const parsed = PlanDiagnosticSchema.safeParse(d);
    if (!parsed.success) return [];
    const { severity: _severity, status: _status, ...finding } = parsed.data;
    return [finding];
  });
}

function missingCapability(id: string, { envelope, known }: Context): Finding {
  const path = 'policies.planner.selection.require';
  const matching = known.filter((c) => matchesAny(c.capabilityId, [id]));
  const fix = matching.length
    ? `${whyUnused(matching, envelope)}; or drop ${id} from ${path}.`
    : `Register and start an agent serving ${id}, or drop ${id} from ${path}.`;
  return {
    cause: 'missing_producer',
    constraintId: 'policy.selection.require',
    constraint: `capability ${id} is registered and active`,
    ...(IdentifierSchema.safeParse(id).success ? { capabilityId: id } : {}),
    suggestion: fix,
    details: { check: 'required_capability', path, required: id },
  };
}

function missingFacet(facet: string, { envelope, known }: Context): Finding {
  const key = getFacetCatalog().get(facet)?.propertyKey ?? facet;
  const schemaPath = schemaProperties(envelope).includes(key) ? `/properties/${key}` : undefined;
  const constraints = constraintsWithRoots(envelope)
    .filter((c) => c.roots.includes(facet))
    .map((c) => c.id);
  const where = schemaPath ? `outputContract.schema${schemaPath}` : `constraint(s) ${constraints.join(', ')}`;
  const producers = known.filter((c) => c.outputContract.includes(facet));
  const fix = producers.length
    ? `${whyUnused(producers, envelope)} (each produces ${facet}).`
    : `Register an agent whose outputContract includes ${facet}, or drop ${facet} from ${where}.`;
  return {
    cause: 'missing_producer',
    constraintId: `facet.${facet}`,
    constraint: `an active capability produces ${facet} (asked for at ${where})`,
    suggestion: fix,
    details: { check: 'missing_producer', facet, ...(schemaPath ? { path: schemaPath } : {}), constraints },
  };
}

function missingKind(kind: string, context: Context): Finding {
  const facets = kind === 'validation' ? [...VALIDATION_FACETS].sort() : [];
  const producers = context.known.filter((c) => facets.some((f) => c.outputContract.includes(f)));
  const path = 'policies.planner.topology.requiredKinds';
  const wanted = facets.join(' or ') || `a ${kind} node's facets`;
  const fix = producers.length
    ? `${whyUnused(producers, context.envelope)}.`
    : `Register an agent producing ${wanted}, or drop ${kind} from ${path}.`;
  return {
    cause: 'missing_producer',
    constraintId: 'policy.topology.requiredKinds',
    constraint: `a ${kind} node (${facets.join(' or ') || kind}) can be planned`,
    suggestion: fix,
    details: { check: 'required_kind', kind, facets, path },
  };
}

const FIX: Partial<Record<PlannerError['code'], string>> = {
  PLANNER_INVALID_GOAL:
    'Name a catalog facet (say copyVariants) as a top-level property of outputContract.schema.',
  PLANNER_NO_CAPABILITIES:
    'Start the agents, or register a capability (POST /api/v1/flex/capabilities/register), then start a new run.',
  PLANNER_UNRESOLVABLE: 'Reconcile the planner policies the message names (they contradict each other).',
};

const RETRY = 'Retry the run; the planner may succeed later.';
const CHANGE = 'Change the envelope or the registry, then start a new run.';

/** An error with nothing more specific to say: the planner produced no plan, and why. */
function generic(error: PlannerError, { envelope }: Context): Finding {
  const contract = error.code === 'PLANNER_INVALID_GOAL';
  const extra = contract ? { path: '/properties', properties: schemaProperties(envelope) } : {};
  return {
    cause: contract || error.code === 'PLANNER_UNRESOLVABLE' ? 'schema_incompatible' : 'missing_producer',
    constraintId: `planner.${error.code.toLowerCase()}`,
    constraint: error.message,
    suggestion: FIX[error.code] ?? (error.retryable ? RETRY : CHANGE),
    details: { check: 'planner_error', code: error.code, retryable: error.retryable, ...extra },
  };
}

/** Why each capability that would do was not used, and what brings it back. */
function whyUnused(caps: readonly KnownCapability[], envelope: TaskEnvelope): string {
  const forbid = envelope.policies?.planner?.selection?.forbid ?? [];
  const why = (c: KnownCapability): string => {
    if (c.status !== 'active') return `is registered but ${c.status}: start its agent so it heartbeats again`;
    if (matchesAny(c.capabilityId, forbid))
      return 'is excluded by policies.planner.selection.forbid: allow it';
    return 'is active but could not be planned (its inputs cannot be supplied, or a replan left it out)';
  };
  return caps.map((c) => `${c.capabilityId} ${why(c)}`).join('; ');
}

function listOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

const cmp = (a = '', b = '') => (a < b ? -1 : a > b ? 1 : 0);
const byConstraintId = (a: PlanDiagnostic, b: PlanDiagnostic) =>
  cmp(a.constraintId, b.constraintId) || cmp(a.capabilityId, b.capabilityId);
