import { getFacetCatalog, type ConstraintSpec, type PlanDiagnostic, type PlanNode } from '@flex/contracts';
import { constraintIdOf } from '@flex/logic';
import { formatRule, rootOf, rootPaths } from './constraint-rules';
import type { EnvelopeFacts } from './envelope-facts';
import type { PlanIndex } from './plan-index';
import type { RegistryIndex } from './registry-index';

interface Subject {
  id: string;
  spec: ConstraintSpec;
  readable: string;
  paths: string[];
  roots: string[];
}

type NonEmpty<T> = readonly [T, ...T[]];

interface Scope {
  index: PlanIndex;
  facts: EnvelopeFacts;
  registry: RegistryIndex;
  /** Main-path nodes producing each output key, in topological order. */
  producers: ReadonlyMap<string, NonEmpty<PlanNode>>;
}

/** A root the plan produces, with its producers. */
interface Produced {
  root: string;
  producers: NonEmpty<PlanNode>;
}

/**
 * The structure of the output contract's constraints (spec 000 §5.9.1–5.9.3): a producer for
 * every facet a constraint reads (`missing_producer`; `unsatisfied_soft` for a soft one, which never
 * blocks), an enforcer for every hard constraint (`missing_enforcer`), and an `advisory` for each
 * informational one. Whether a constraint holds is the proof's (proof.checks.ts).
 */
export function checkConstraints(
  index: PlanIndex,
  facts: EnvelopeFacts,
  registry: RegistryIndex,
  constraints: readonly ConstraintSpec[],
): PlanDiagnostic[] {
  if (constraints.length === 0) return [];
  const scope: Scope = { index, facts, registry, producers: producersOf(index) };
  return constraints.flatMap((spec, i) => {
    const paths = rootPaths(spec.expr);
    const subject = {
      id: constraintIdOf(spec, i),
      spec,
      readable: formatRule(spec.expr),
      paths,
      roots: [...new Set(paths.map(rootOf))],
    };
    return spec.level === 'informational' ? [advisory(subject, scope)] : checkOne(subject, scope);
  });
}

function checkOne(subject: Subject, scope: Scope): PlanDiagnostic[] {
  const missing = subject.roots.filter(
    (root) => !scope.producers.has(root) && !scope.facts.supplied.has(root),
  );
  if (missing.length > 0) return missing.map((root) => missingProducer(subject, scope, root));
  const fromPlan = subject.roots.flatMap((root): Produced[] => {
    const producers = scope.producers.get(root);
    return producers ? [{ root, producers }] : [];
  });
  // Whether the rule holds for every output the producers can give is the proof's (proof.checks).
  return subject.spec.level === 'hard' && isNonEmpty(fromPlan) ? checkEnforcer(subject, scope, fromPlan) : [];
}

function missingProducer(subject: Subject, scope: Scope, root: string): PlanDiagnostic {
  const capability = scope.registry.producers.get(facetFor(root))?.[0];
  const terminal = scope.index.terminal;
  const suggestion = capability
    ? `Insert ${capability.capabilityId}${terminal ? ` before ${terminal.id}` : ''}.`
    : `No active capability produces ${root}; register one or relax ${subject.id}.`;
  const base = {
    constraint: subject.readable,
    constraintId: subject.id,
    suggestion,
    details: { facet: root, reason: 'missing_producer' },
  };
  const where = {
    ...(terminal ? { nodeId: terminal.id } : {}),
    ...(capability ? { capabilityId: capability.capabilityId } : {}),
  };
  return subject.spec.level === 'hard'
    ? { severity: 'hard', status: 'unsatisfied', cause: 'missing_producer', ...base, ...where }
    : { severity: 'soft', status: 'unsatisfied', cause: 'unsatisfied_soft', ...base, ...where };
}

/** Some main-path node lists the constraint in `enforces` and sees (produces or follows) every facet it reads. */
function checkEnforcer(subject: Subject, scope: Scope, produced: NonEmpty<Produced>): PlanDiagnostic[] {
  const { index } = scope;
  const roots = produced.map((p) => p.root);
  const listed = index.order.filter((n) => n.kind !== 'fallback' && (n.enforces ?? []).includes(subject.id));
  const sees = (node: PlanNode, { root, producers }: Produced) =>
    node.outputFacets.some((f) => keyOf(f) === root) ||
    producers.some((p) => p.outputFacets.some((f) => keyOf(f) === root && index.hasUpstream(node.id, f)));
  if (listed.some((node) => produced.every((p) => sees(node, p)))) return [];
  // Of each root's last producer, the one ranked last (on a tie, the later root's).
  const last = produced
    .map(({ producers }) => lastOf(producers))
    .reduce((a, b) => (index.rankOf(b.id) >= index.rankOf(a.id) ? b : a));
  const why = listed.length
    ? ` (${listed.map((n) => n.id).join(', ')} list it but do not see ${roots.join(', ')})`
    : '';
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

function advisory(subject: Subject, scope: Scope): PlanDiagnostic {
  const note =
    subject.spec.rationale ??
    subject.spec.description ??
    'Informational: it changes neither acceptance nor the score.';
  const unproduced = subject.roots.filter(
    (root) => !scope.producers.has(root) && !scope.facts.supplied.has(root),
  );
  return {
    severity: 'informational',
    status: 'unknown',
    cause: 'advisory',
    constraint: subject.readable,
    constraintId: subject.id,
    details: { note, ...(unproduced.length ? { unproduced } : {}) },
  };
}

function producersOf(index: PlanIndex): Map<string, [PlanNode, ...PlanNode[]]> {
  const out = new Map<string, [PlanNode, ...PlanNode[]]>();
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

const isNonEmpty = <T>(list: readonly T[]): list is NonEmpty<T> => list.length > 0;
const lastOf = <T>(list: NonEmpty<T>): T => list[list.length - 1];

const keyOf = (facet: string): string => getFacetCatalog().get(facet)?.propertyKey ?? facet;

function facetFor(root: string): string {
  const catalog = getFacetCatalog();
  return catalog.has(root) ? root : (catalog.list().find((f) => f.propertyKey === root)?.name ?? root);
}
