import type { CapabilityRegistration } from '@flex/contracts';

/** The facets an agent declares across all of its registered capabilities. */
export interface AgentFacets {
  readonly inputs: ReadonlySet<string>;
  readonly outputs: ReadonlySet<string>;
}

/** Lookups over one registry snapshot, built once per snapshot (cached on the array). */
export interface RegistryIndex {
  readonly byCapability: ReadonlyMap<string, CapabilityRegistration>;
  /** Active capabilities producing each facet, by capability id. */
  readonly producers: ReadonlyMap<string, readonly CapabilityRegistration[]>;
  readonly agents: ReadonlyMap<string, AgentFacets>;
}

const cache = new WeakMap<readonly CapabilityRegistration[], RegistryIndex>();

/**
 * The agent a capability belongs to: `metadata.agentId` when the agent says so, else the part of
 * the capability id before its first dot (`QualityAssuranceAgent.contentReview` →
 * `QualityAssuranceAgent`).
 */
export function agentOf(registration: Pick<CapabilityRegistration, 'capabilityId' | 'metadata'>): string {
  const declared = registration.metadata?.agentId;
  if (typeof declared === 'string' && declared.length > 0) return declared;
  const dot = registration.capabilityId.indexOf('.');
  return dot > 0 ? registration.capabilityId.slice(0, dot) : registration.capabilityId;
}

export function indexRegistry(active: readonly CapabilityRegistration[]): RegistryIndex {
  const hit = cache.get(active);
  if (hit) return hit;
  const byCapability = new Map<string, CapabilityRegistration>();
  const producers = new Map<string, CapabilityRegistration[]>();
  const agents = new Map<string, { inputs: Set<string>; outputs: Set<string> }>();
  const sorted = [...active].sort((a, b) =>
    a.capabilityId < b.capabilityId ? -1 : a.capabilityId > b.capabilityId ? 1 : 0,
  );
  for (const registration of sorted) {
    if (byCapability.has(registration.capabilityId)) continue; // several instances of one capability
    byCapability.set(registration.capabilityId, registration);
    for (const facet of registration.outputContract) {
      const list = producers.get(facet) ?? [];
      list.push(registration);
      producers.set(facet, list);
    }
    const agent = agents.get(agentOf(registration)) ?? {
      inputs: new Set<string>(),
      outputs: new Set<string>(),
    };
    registration.inputContract.forEach((f) => agent.inputs.add(f));
    registration.outputContract.forEach((f) => agent.outputs.add(f));
    agents.set(agentOf(registration), agent);
  }
  const index = { byCapability, producers, agents };
  cache.set(active, index);
  return index;
}
