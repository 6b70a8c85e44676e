import { ruleRoots } from '@flex/logic';
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
  const wanted = new Set([...schemaProperties(envelope), ...requiredProperties(envelope)]);
  for (const c of envelope.outputContract.constraints ?? []) {
    if (c.level !== 'informational') for (const root of varRoots(c.expr)) wanted.add(root);
  }
  return [...wanted].filter((f) => f.length > 0).sort();
}

/**
 * The targets a plan cannot do without: the schema's required properties and what hard constraints
 * read. Optional properties and soft constraints are produced when some capability can, and never
 * block a plan (a run without them still meets the contract).
 */
export function mandatoryTargets(envelope: TaskEnvelope): Set<string> {
  const wanted = new Set(requiredProperties(envelope));
  for (const c of envelope.outputContract.constraints ?? []) {
    if (c.level === 'hard') for (const root of varRoots(c.expr)) wanted.add(root);
  }
  return wanted;
}

function requiredProperties(envelope: TaskEnvelope): string[] {
  const required = (envelope.outputContract.schema as { required?: unknown }).required;
  return Array.isArray(required)
    ? required.filter((k): k is string => typeof k === 'string' && k.length > 0)
    : [];
}

/** The constraints with the id the validator gives them (`constraint_<index>` when unnamed), and the facets they read. */
export function constraintsWithRoots(envelope: TaskEnvelope): Array<{ id: string; roots: string[] }> {
  return (envelope.outputContract.constraints ?? []).map((c, index) => ({
    id: c.constraintId ?? `constraint_${index}`,
    roots: varRoots(c.expr),
  }));
}

/** The facets one constraint reads. */
export function constraintRoots(envelope: TaskEnvelope, constraintId: string): string[] {
  return constraintsWithRoots(envelope).find((c) => c.id === constraintId)?.roots ?? [];
}

/** The facets one constraint reads at the top level of the output (quantifier bodies read items). */
export const varRoots = (expr: unknown): string[] => ruleRoots(expr).filter((p) => p.length > 0);
