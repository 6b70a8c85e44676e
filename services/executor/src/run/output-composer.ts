import { compileUntrustedSchema } from '@flex/facets';
import { topologicalOrder, type StartedRun } from '@flex/run-model';
import { envelopeFacets } from '@flex/facets';

export type Composition =
  | { ok: true; output: Record<string, unknown> }
  | { ok: false; errors: Array<{ path: string; keyword?: string; message: string }> };

/**
 * The final output: the caller's declared top-level fields, each taken from the latest validated
 * node output that provides it (else from the envelope), in the order `hints.fieldOrder` gives,
 * then validated against the caller's schema.
 */
export function composeFinalOutput(state: StartedRun): Composition {
  const values: Record<string, unknown> = { ...envelopeFacets(state.envelope).values };
  for (const node of topologicalOrder(state.plan!)) {
    const out = state.nodes[node.id]?.output;
    if (state.nodes[node.id]?.status === 'completed' && out) Object.assign(values, out);
  }
  const schema = state.envelope.outputContract.schema as { properties?: Record<string, unknown> };
  const declared = Object.keys(schema.properties ?? {});
  const order = fieldOrder(state.envelope.outputContract.hints, declared);
  const output: Record<string, unknown> = {};
  for (const key of order) if (values[key] !== undefined) output[key] = values[key];
  const validate = compileUntrustedSchema(state.envelope.outputContract.schema);
  const errors = validate(output).map((e) => ({ path: e.pointer || '/', keyword: e.keyword, message: e.message }));
  return errors.length ? { ok: false, errors } : { ok: true, output };
}

function fieldOrder(hints: Record<string, unknown> | undefined, declared: string[]): string[] {
  const hinted = Array.isArray(hints?.fieldOrder) ? (hints!.fieldOrder as unknown[]).filter((k): k is string => typeof k === 'string') : [];
  return [...hinted.filter((k) => declared.includes(k)), ...declared.filter((k) => !hinted.includes(k))];
}
