import { getFacetCatalog, type ConstraintSpec, type PlanDiagnostic, type PlanNode } from '@flex/contracts';
import { constraintIdOf, evaluateRule, truthy } from '@flex/logic';
import { formatRule, rootOf, rootPaths } from './constraint-rules';
import type { EnvelopeFacts } from './envelope-facts';
import type { PlanIndex } from './plan-index';
import { plannedVariants, variantArrays } from './policy.checks';
import type { RegistryIndex } from './registry-index';

interface Subject {
  id: string;
  spec: ConstraintSpec;
  readable: string;
  paths: string[];
  roots: string[];
}

interface Scope {
  index: PlanIndex;
  facts: EnvelopeFacts;
  registry: RegistryIndex;
  /** Main-path nodes producing each output key, in topological order. */
  producers: ReadonlyMap<string, readonly PlanNode[]>;
  /** Array lengths the plan fixes (variantCount on the array the execution node produces). */
  lengths: ReadonlyMap<string, number>;
}

/**
 * Symbolic satisfiability of the output contract's constraints (spec 000 §5.9.1–5.9.3): a producer
 * for every facet a constraint reads (`missing_producer`), an enforcer for every hard constraint
 * (`missing_enforcer`), soft constraints the plan cannot meet (`unsatisfied_soft`) and an
 * `advisory` for each informational one.
 */
export function checkConstraints(index: PlanIndex, facts: EnvelopeFacts, registry: RegistryIndex, constraints: readonly ConstraintSpec[]): PlanDiagnostic[] {
  if (constraints.length === 0) return [];
  const scope: Scope = { index, facts, registry, producers: producersOf(index), lengths: fixedLengths(index, facts) };
  return constraints.flatMap((spec, i) => {
    const paths = rootPaths(spec.expr);
    const subject = { id: constraintIdOf(spec, i), spec, readable: formatRule(spec.expr), paths, roots: [...new Set(paths.map(rootOf))] };
    return spec.level === 'informational' ? [advisory(subject, scope)] : checkOne(subject, scope);
  });
}

function checkOne(subject: Subject, scope: Scope): PlanDiagnostic[] {
  const missing = subject.roots.filter((root) => !scope.producers.has(root) && !scope.facts.supplied.has(root));
  if (missing.length > 0) return missing.map((root) => missingProducer(subject, scope, root));
  const fromPlan = subject.roots.filter((root) => scope.producers.has(root));
  const out: PlanDiagnostic[] = [];
  if (subject.spec.level === 'hard' && fromPlan.length > 0) out.push(...checkEnforcer(subject, scope, fromPlan));
  const verdict = fromPlan.length === 0 ? evaluateOn(subject, scope.facts.values) : evaluateOnShape(subject, scope);
  if (verdict === false) out.push(unmet(subject, scope));
  return out;
}

function missingProducer(subject: Subject, scope: Scope, root: string): PlanDiagnostic {
  const capability = scope.registry.producers.get(facetFor(root))?.[0];
  const terminal = scope.index.terminal;
  const suggestion = capability
    ? `Insert ${capability.capabilityId}${terminal ? ` before ${terminal.id}` : ''}.`
    : `No active capability produces ${root}; register one or relax ${subject.id}.`;
  const base = { constraint: subject.readable, constraintId: subject.id, suggestion, details: { facet: root, reason: 'missing_producer' } };
  const where = { ...(terminal ? { nodeId: terminal.id } : {}), ...(capability ? { capabilityId: capability.capabilityId } : {}) };
  return subject.spec.level === 'hard'
    ? { severity: 'hard', status: 'unsatisfied', cause: 'missing_producer', ...base, ...where }
    : { severity: 'soft', status: 'unsatisfied', cause: 'unsatisfied_soft', ...base, ...where };
}

/** Some main-path node lists the constraint in `enforces` and sees (produces or follows) every facet it reads. */
function checkEnforcer(subject: Subject, scope: Scope, roots: string[]): PlanDiagnostic[] {
  const { index } = scope;
  const listed = index.order.filter((n) => n.kind !== 'fallback' && (n.enforces ?? []).includes(subject.id));
  const sees = (node: PlanNode, root: string) =>
    node.outputFacets.some((f) => keyOf(f) === root) || scope.producers.get(root)!.some((p) => p.outputFacets.some((f) => keyOf(f) === root && index.hasUpstream(node.id, f)));
  if (listed.some((node) => roots.every((root) => sees(node, root)))) return [];
  const last = roots.map((root) => scope.producers.get(root)!.at(-1)!).sort((a, b) => index.rankOf(a.id) - index.rankOf(b.id)).at(-1)!;
  const why = listed.length ? ` (${listed.map((n) => n.id).join(', ')} list it but do not see ${roots.join(', ')})` : '';
  return [
    {
      severity: 'hard',
      status: 'unsatisfied',
      cause: 'missing_enforcer',
      constraint: subject.readable,
      constraintId: subject.id,
      nodeId: last.id,
      ...(last.capabilityId ? { capabilityId: last.capabilityId } : {}),
      suggestion: `Add ${subject.id} to the enforces of ${last.id}, which produces ${roots.join(', ')} last${why}.`,
      details: { reason: 'missing_enforcer', facets: roots, listedBy: listed.map((n) => n.id) },
    },
  ];
}

function unmet(subject: Subject, scope: Scope): PlanDiagnostic {
  const length = subject.paths.map((p) => p.slice(0, -'.length'.length)).find((root) => scope.lengths.has(root));
  const planned = length === undefined ? '' : ` (the plan produces ${scope.lengths.get(length)} ${length})`;
  const exact = exactTarget(subject.spec.expr);
  const suggestion =
    exact !== undefined && length !== undefined
      ? `Expand branch node to produce exactly ${exact} ${length === 'copyVariants' ? 'variants' : `${length} items`}.`
      : `Change the plan or the inputs so that ${subject.readable} can hold${planned}.`;
  const base = { constraint: subject.readable, constraintId: subject.id, suggestion, details: { reason: 'contradicted', ...(length ? { property: length, planned: scope.lengths.get(length)! } : {}) } };
  return subject.spec.level === 'hard'
    ? { severity: 'hard', status: 'unsatisfied', cause: 'schema_incompatible', ...base }
    : { severity: 'soft', status: 'unsatisfied', cause: 'unsatisfied_soft', ...base };
}

function advisory(subject: Subject, scope: Scope): PlanDiagnostic {
  const note = subject.spec.rationale ?? subject.spec.description ?? 'Informational: it changes neither acceptance nor the score.';
  const unproduced = subject.roots.filter((root) => !scope.producers.has(root) && !scope.facts.supplied.has(root));
  return {
    severity: 'informational',
    status: 'unknown',
    cause: 'advisory',
    constraint: subject.readable,
    constraintId: subject.id,
    details: { note, ...(unproduced.length ? { unproduced } : {}) },
  };
}

/** Evaluate on values fixed now (facets only the envelope supplies): true/false, or undefined when it cannot say. */
function evaluateOn(subject: Subject, data: unknown): boolean | undefined {
  const result = evaluateRule(subject.spec.expr, data);
  return result.ok ? truthy(result.value) : undefined;
}

/** When every path the rule reads is `<array>.length` of an array whose length the plan fixes, evaluate it on that shape. */
function evaluateOnShape(subject: Subject, scope: Scope): boolean | undefined {
  if (scope.lengths.size === 0 || subject.paths.length === 0) return undefined;
  const shape: Record<string, { length: number }> = {};
  for (const path of subject.paths) {
    const root = path.endsWith('.length') ? path.slice(0, -'.length'.length) : undefined;
    if (root === undefined || root.includes('.') || !scope.lengths.has(root)) return undefined;
    shape[root] = { length: scope.lengths.get(root)! };
  }
  return evaluateOn(subject, shape);
}

function producersOf(index: PlanIndex): Map<string, PlanNode[]> {
  const out = new Map<string, PlanNode[]>();
  const add = (key: string, node: PlanNode) => {
    const list = out.get(key);
    if (list) list.push(node);
    else out.set(key, [node]);
  };
  for (const node of index.order) {
    if (node.kind === 'fallback') continue;
    for (const facet of node.outputFacets) {
      const key = keyOf(facet);
      add(facet, node);
      if (key !== facet) add(key, node);
    }
  }
  return out;
}

function fixedLengths(index: PlanIndex, facts: EnvelopeFacts): Map<string, number> {
  const out = new Map<string, number>();
  const count = plannedVariants(index, facts)?.value;
  if (count === undefined) return out;
  for (const property of variantArrays(index, facts)) out.set(property, count);
  return out;
}

/** `{ '==': [{ var: 'x.length' }, N] }` (either side) → N. */
function exactTarget(rule: unknown): number | undefined {
  if (!rule || typeof rule !== 'object') return undefined;
  const [op, args] = Object.entries(rule as Record<string, unknown>)[0] ?? [];
  if ((op !== '==' && op !== '===') || !Array.isArray(args) || args.length !== 2) return undefined;
  const n = args.find((a) => typeof a === 'number');
  return typeof n === 'number' ? n : undefined;
}

const keyOf = (facet: string): string => getFacetCatalog().get(facet)?.propertyKey ?? facet;

function facetFor(root: string): string {
  const catalog = getFacetCatalog();
  return catalog.has(root) ? root : (catalog.list().find((f) => f.propertyKey === root)?.name ?? root);
}
