import type { PlanNode } from '@flex/contracts';
import { compileUntrustedSchema, defaultFacetCompiler } from '@flex/facets';

/** One way a node output breaks its contract; `path` is a JSON pointer into the output. */
export interface OutputIssue {
  path: string;
  keyword?: string;
  message: string;
  facet?: string;
}

/** The output property a facet's value sits under (its `propertyKey`, else its name). */
export function facetKey(facet: string): string {
  return defaultFacetCompiler().facet(facet)?.propertyKey ?? facet;
}

/** The caller-contract fragments bound to the node's output facets, in facet-name order. */
function outputBindings(node: PlanNode): Array<[string, Record<string, unknown>]> {
  const outputs = node.bindings?.outputs ?? {};
  return Object.keys(outputs)
    .filter((facet) => node.outputFacets.includes(facet))
    .sort()
    .map((facet) => [facet, outputs[facet]]);
}

/**
 * The node's full output contract: its compiled facet schema with each binding added as `allOf`
 * under the facet's property, so an agent is asked for what the caller's contract needs.
 */
export function nodeOutputSchema(node: PlanNode): Record<string, unknown> {
  const compiled = defaultFacetCompiler().compile(node.outputFacets, 'output').schema;
  const properties: Record<string, unknown> = { ...(compiled.properties as Record<string, unknown>) };
  for (const [facet, binding] of outputBindings(node)) {
    const key = facetKey(facet);
    if (properties[key] !== undefined) properties[key] = { allOf: [properties[key], binding] };
  }
  return { ...compiled, properties };
}

/** Every way `output` breaks the node's facet contract and its bindings (facet ∧ binding). */
export function nodeOutputErrors(node: PlanNode, output: unknown): OutputIssue[] {
  const facetIssues = defaultFacetCompiler()
    .compile(node.outputFacets, 'output')
    .validate(output)
    .map((e) => ({ path: e.pointer || '/', keyword: e.keyword, message: e.message, facet: e.facet }));
  return [...facetIssues, ...bindingErrors(node, output)];
}

/** Binding checks (the caller's own schema fragments, compiled as untrusted schemas); pointers start at `/<facet>`. */
export function bindingErrors(node: PlanNode, output: unknown): OutputIssue[] {
  if (!output || typeof output !== 'object' || Array.isArray(output)) return [];
  const issues: OutputIssue[] = [];
  for (const [facet, binding] of outputBindings(node)) {
    const key = facetKey(facet);
    const value = (output as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const at = `/${escapePointer(key)}`;
    let validate: ReturnType<typeof compileUntrustedSchema>;
    try {
      validate = compileUntrustedSchema(binding, `plan.nodes.${node.id}.bindings.outputs.${facet}`);
    } catch (error) {
      // Fail closed: a binding that does not compile admits nothing.
      issues.push({
        path: at,
        keyword: 'binding',
        message: `the contract binding for ${facet} does not compile: ${(error as Error).message}`.slice(
          0,
          2_000,
        ),
        facet,
      });
      continue;
    }
    for (const e of validate(value))
      issues.push({ path: `${at}${e.pointer}`, keyword: e.keyword, message: e.message, facet });
  }
  return issues;
}

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
