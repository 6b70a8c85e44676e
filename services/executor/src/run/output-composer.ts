import { compileUntrustedSchema, envelopeFacets } from '@flex/facets';
import { evaluateConstraints } from '@flex/logic';
import { topologicalOrder, type StartedRun } from '@flex/run-model';

export type CompositionError = { path: string; keyword?: string; message: string };

export type Composition =
  | { ok: true; output: Record<string, unknown>; observedSatisfaction: number }
  | { ok: false; errors: CompositionError[]; reason: 'output_invalid' | 'constraint_failed' };

/**
 * The final output: the caller's declared top-level fields, each taken from the latest validated
 * node output that provides it (else from the envelope), in the order `hints.fieldOrder` gives,
 * then validated against the caller's schema; then every constraint of the contract is evaluated
 * (spec 000 §5.9.3 `observedSatisfaction`). A hard constraint that does not hold fails the run.
 *
 * Constraints read the output together with every facet the run produced, so a constraint on a
 * facet the caller does not ask back (`qaFindings.overallScore >= 0.8`) is still checked.
 */
export function composeFinalOutput(state: StartedRun): Composition {
  const values: Record<string, unknown> = { ...envelopeFacets(state.envelope).values };
  for (const node of topologicalOrder(state.plan!)) {
    const out = state.nodes[node.id]?.output;
    if (state.nodes[node.id]?.status === 'completed' && out) Object.assign(values, out);
  }
  const { schema, hints, constraints = [] } = state.envelope.outputContract;
  const declared = Object.keys((schema as { properties?: Record<string, unknown> }).properties ?? {});
  const output: Record<string, unknown> = {};
  for (const key of fieldOrder(hints, declared)) if (values[key] !== undefined) output[key] = values[key];
  const validate = compileUntrustedSchema(schema);
  const schemaErrors = validate(output).map((e) => ({ path: e.pointer || '/', keyword: e.keyword, message: e.message }));
  if (schemaErrors.length) return { ok: false, errors: schemaErrors, reason: 'output_invalid' };
  const evaluation = evaluateConstraints({ ...values, ...output }, constraints);
  if (evaluation.hardFailures.length) {
    const errors = evaluation.hardFailures.map((f) => ({
      path: `/constraints/${f.constraintId}`,
      keyword: 'constraint',
      message: `hard constraint ${f.constraintId} does not hold${f.error ? `: ${f.error}` : ''}`,
    }));
    return { ok: false, errors, reason: 'constraint_failed' };
  }
  return { ok: true, output, observedSatisfaction: evaluation.observedSatisfaction };
}

function fieldOrder(hints: Record<string, unknown> | undefined, declared: string[]): string[] {
  const hinted = Array.isArray(hints?.fieldOrder) ? (hints!.fieldOrder as unknown[]).filter((k): k is string => typeof k === 'string') : [];
  return [...hinted.filter((k) => declared.includes(k)), ...declared.filter((k) => !hinted.includes(k))];
}
