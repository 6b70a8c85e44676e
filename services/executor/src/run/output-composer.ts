import { compileUntrustedSchema, envelopeFacets, type UntrustedValidationError } from '@flex/facets';
import { evaluateConstraints } from '@flex/logic';
import { constraintIssue, constraintRoots, topologicalOrder, type StartedRun } from '@flex/run-model';
import type { RootedError } from './blame';

export type CompositionError = { path: string; keyword?: string; message: string };

/** A composition error and the top-level output properties (facets) it is about: what a repair re-produces. */
export type BlamedError = RootedError;

export type Composition =
  | { ok: true; output: Record<string, unknown>; observedSatisfaction: number }
  | { ok: false; errors: BlamedError[]; reason: 'output_invalid' | 'constraint_failed' };

/**
 * The final output: the caller's declared top-level fields, each taken from the latest validated
 * node output that provides it (else from the envelope), in the order `hints.fieldOrder` gives,
 * then validated against the caller's schema; then every constraint of the contract is evaluated
 * (spec 000 §5.9.3 `observedSatisfaction`). A hard constraint that does not hold fails the output.
 *
 * Constraints read the output together with every facet the run produced, so a constraint on a
 * facet the caller does not ask back (`qaFindings.overallScore >= 0.8`) is still checked.
 */
export function composeFinalOutput(state: StartedRun): Composition {
  const values: Record<string, unknown> = { ...envelopeFacets(state.envelope).values };
  for (const node of state.plan ? topologicalOrder(state.plan) : []) {
    const out = state.nodes[node.id]?.output;
    if (state.nodes[node.id]?.status === 'completed' && out) Object.assign(values, out);
  }
  const { schema, hints, constraints = [] } = state.envelope.outputContract;
  const declared = Object.keys((schema as { properties?: Record<string, unknown> }).properties ?? {});
  const output: Record<string, unknown> = {};
  for (const key of fieldOrder(hints, declared)) if (values[key] !== undefined) output[key] = values[key];
  const validate = compileUntrustedSchema(schema);
  const schemaErrors = validate(output).map((e) => ({
    path: e.pointer || '/',
    keyword: e.keyword,
    message: e.message,
    roots: rootsOf(e),
  }));
  if (schemaErrors.length) return { ok: false, errors: schemaErrors, reason: 'output_invalid' };
  const evaluation = evaluateConstraints({ ...values, ...output }, constraints);
  if (evaluation.hardFailures.length) {
    const specs = new Map(constraints.map((c, i) => [c.constraintId ?? `constraint_${i}`, c]));
    const errors = evaluation.hardFailures.flatMap((f) => {
      const spec = specs.get(f.constraintId);
      return spec
        ? [{ ...constraintIssue(f.constraintId, spec, f.error), roots: constraintRoots(spec.expr) }]
        : [];
    });
    return { ok: false, errors, reason: 'constraint_failed' };
  }
  return { ok: true, output, observedSatisfaction: evaluation.observedSatisfaction };
}

/** The top-level property a schema error is about: the first pointer segment, or the missing property. */
function rootsOf(e: UntrustedValidationError): string[] {
  const first = e.pointer.split('/')[1];
  if (first !== undefined && first !== '') return [first.replace(/~1/g, '/').replace(/~0/g, '~')];
  const missing = e.params.missingProperty;
  return typeof missing === 'string' ? [missing] : [];
}

function fieldOrder(hints: Record<string, unknown> | undefined, declared: string[]): string[] {
  const hinted = Array.isArray(hints?.fieldOrder)
    ? hints.fieldOrder.filter((k): k is string => typeof k === 'string')
    : [];
  return [...hinted.filter((k) => declared.includes(k)), ...declared.filter((k) => !hinted.includes(k))];
}
