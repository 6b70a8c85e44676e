import type { CapabilityRegistration, CapabilityStatus } from '@flex/contracts';
import type { CapabilityRow } from '@flex/read-models';
import type { CapabilitySnapshot, CapabilityView } from '@flex/runtime';

/** One running instance of a capability, as the registry last saw it. */
export interface InstanceView {
  instanceId: string;
  status: CapabilityStatus;
  registeredAt: string;
  lastSeenAt: string;
}

/** The snapshot's view of a capability, with its instances listed. */
export interface RegistryCapabilityView extends CapabilityView {
  instances: InstanceView[];
}

export interface RegistrySnapshot extends CapabilitySnapshot {
  capabilities: RegistryCapabilityView[];
}

const RANK: Record<CapabilityStatus, number> = { active: 2, inactive: 1, deregistered: 0 };

/**
 * Groups read-model rows (one per capability instance) into one view per capability: active while
 * any instance is, else inactive while any instance is merely silent, else deregistered. The
 * registration shown is the most recently registered live one. Pure.
 */
export function buildSnapshot(rows: readonly CapabilityRow[]): RegistrySnapshot {
  const groups = new Map<string, CapabilityRow[]>();
  for (const row of rows) groups.set(row.capabilityId, [...(groups.get(row.capabilityId) ?? []), row]);
  const capabilities = [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, group]) => viewOf(group));
  return { capabilities };
}

function viewOf(group: readonly CapabilityRow[]): RegistryCapabilityView {
  const instances: InstanceView[] = group.map((r) => ({
    instanceId: r.instanceId,
    status: r.status as CapabilityStatus,
    registeredAt: r.registeredAt,
    lastSeenAt: r.lastSeenAt ?? r.updatedAt,
  }));
  const status = instances.reduce<CapabilityStatus>(
    (best, i) => (RANK[i.status] > RANK[best] ? i.status : best),
    'deregistered',
  );
  const shown = [...group].sort(
    (a, b) =>
      RANK[b.status as CapabilityStatus] - RANK[a.status as CapabilityStatus] ||
      (b.updatedAt < a.updatedAt ? -1 : b.updatedAt > a.updatedAt ? 1 : 0),
  )[0];
  return {
    registration: shown.registration as CapabilityRegistration,
    status,
    activeInstances: instances.filter((i) => i.status === 'active').length,
    registeredAt: instances.map((i) => i.registeredAt).sort()[0],
    lastSeenAt: instances
      .map((i) => i.lastSeenAt)
      .sort()
      .at(-1) as string,
    instances,
  };
}
