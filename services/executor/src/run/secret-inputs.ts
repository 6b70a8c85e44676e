import type { AgentInvocation } from '@flex/agent-sdk';
import { getFacetCatalog, replaceSecretRefs, type CapabilityRegistration } from '@flex/contracts';

/**
 * The invocation's input facets whose secret references are to be revealed (pure): the sensitive
 * facets it carries. `refused` names those the capability, as registered now, does not declare: a
 * plan is validated against registrations, but a registration may change before the node runs.
 */
export function askedSecretFacets(
  invocation: Pick<AgentInvocation, 'inputs'>,
  registration: Pick<CapabilityRegistration, 'inputContract'> | undefined,
): { facets: string[]; refused: string[] } {
  const catalog = getFacetCatalog();
  const sensitive = Object.keys(invocation.inputs).filter((f) => catalog.get(f)?.metadata.sensitive === true);
  const declared = new Set(registration?.inputContract ?? []);
  return {
    facets: sensitive.filter((f) => declared.has(f)),
    refused: sensitive.filter((f) => !declared.has(f)),
  };
}

/**
 * The invocation with the references inside `facets` replaced by their values (pure). Nothing else
 * changes: `context.inputs` and every other facet keep their references, so an agent sees a value
 * only where its contract asked for it.
 */
export function revealSecretInputs(
  invocation: AgentInvocation,
  facets: readonly string[],
  values: ReadonlyMap<string, unknown>,
): AgentInvocation {
  if (facets.length === 0) return invocation;
  const inputs = { ...invocation.inputs };
  for (const facet of facets) inputs[facet] = replaceSecretRefs(inputs[facet], values);
  return { ...invocation, inputs };
}
