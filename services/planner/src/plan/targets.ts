import type { TaskEnvelope } from '@flex/contracts';

/** Facets whose values are QA results: a capability producing only these is a validation node. */
export const VALIDATION_FACETS: ReadonlySet<string> = new Set(['qaFindings', 'recommendationSet']);

/** The caller schema's top-level properties. */
export function schemaProperties(envelope: TaskEnvelope): string[] {
  const props = (envelope.outputContract.schema as { properties?: unknown }).properties;
  return props && typeof props === 'object' ? Object.keys(props).sort() : [];
}

/** Facets the caller's schema asks for at its top level, plus those hard and soft constraints read. */
export function targetFacets(envelope: TaskEnvelope): string[] {
  const wanted = new Set(schemaProperties(envelope));
  for (const c of envelope.outputContract.constraints ?? []) {
    if (c.level !== 'informational') for (const root of varRoots(c.expr)) wanted.add(root);
  }
  return [...wanted].filter((f) => f.length > 0).sort();
}

/** The constraints with the id the validator gives them (`constraint_<index>` when unnamed), and the facets they read. */
export function constraintsWithRoots(envelope: TaskEnvelope): Array<{ id: string; roots: string[] }> {
  return (envelope.outputContract.constraints ?? []).map((c, index) => ({ id: c.constraintId ?? `constraint_${index}`, roots: varRoots(c.expr) }));
}

/** The facets one constraint reads. */
export function constraintRoots(envelope: TaskEnvelope, constraintId: string): string[] {
  return constraintsWithRoots(envelope).find((c) => c.id === constraintId)?.roots ?? [];
}

/** Root facet of every JSONLogic `var` in `expr`, sorted and unique. */
export function varRoots(expr: unknown): string[] {
  return [...new Set(varPaths(expr).map((p) => p.split('.')[0]).filter((p) => p.length > 0))].sort();
}

function varPaths(expr: unknown): string[] {
  if (Array.isArray(expr)) return expr.flatMap(varPaths);
  if (!expr || typeof expr !== 'object') return [];
  return Object.entries(expr).flatMap(([op, arg]) => {
    if (op !== 'var') return varPaths(arg);
    const path = Array.isArray(arg) ? arg[0] : arg;
    return typeof path === 'string' ? [path] : [];
  });
}
