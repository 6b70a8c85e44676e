import type { CapabilityRegistration } from '@flex/contracts';
import { decision, NO_DECISION, type Decision } from '@flex/decider';
import type { CapabilityState } from './capability.state';

/** `owner`: the identity asking (the subject's identity over NATS, the token's principal over HTTP). */
export type RegistryCommand =
  | {
      kind: 'register';
      registration: CapabilityRegistration;
      registrationHash: string;
      instanceId: string;
      at: string;
      owner: string;
    }
  | { kind: 'heartbeat'; instanceId: string; owner: string }
  | { kind: 'expire'; instanceId: string; reason: string }
  /** The registry's own second look: a heartbeat landed while it expired the instance. */
  | { kind: 'revive'; instanceId: string }
  | { kind: 'deregister'; instanceId?: string; reason?: string; owner: string }
  | { kind: 'assign_owner'; owner: string; assignedBy: string };

/** Why the registry refused a command. The transports map it: 403 over HTTP, an error reply over NATS. */
export interface RegistryRefusal {
  type: 'refuse';
  code: 'capability_owned';
  message: string;
}

export type RegistryDecision = Decision<RegistryRefusal>;

/**
 * Registry decisions per capability stream, one instance at a time. The capability belongs to the
 * identity that first registered it (or the one an admin assigned): anyone else's registration,
 * heartbeat or deregistration is refused, and says no more about the owner than that there is one.
 * Registering an instance that is already active with the same registration appends nothing (an
 * upsert; `registeredAt` is kept across re-registrations); a heartbeat revives an inactive
 * instance; expiry turns an active instance inactive; deregistration is final until the instance
 * registers again (without an instance id, every instance still registered goes).
 */
export function decideCapability(
  state: CapabilityState,
  cmd: RegistryCommand,
  capabilityId = state.capabilityId ?? '',
): RegistryDecision {
  const asker = askerOf(cmd);
  if (asker !== undefined && state.owner !== undefined && state.owner !== asker)
    return refuseOwned(capabilityId);
  switch (cmd.kind) {
    case 'register':
      return decideRegister(state, cmd);
    case 'heartbeat':
    case 'revive':
      return decideStatus(state, capabilityId, cmd.instanceId, 'inactive', 'heartbeat resumed');
    case 'expire':
      return decideStatus(state, capabilityId, cmd.instanceId, 'active', cmd.reason.slice(0, 500));
    case 'deregister':
      return decideDeregister(state, capabilityId, cmd);
    case 'assign_owner':
      return decideAssignOwner(state, capabilityId, cmd);
  }
}

/** The ownership rule: a capability nobody owns yet is anyone's to claim; an owned one is its owner's. */
export function ownedByAnother(owner: string | undefined, asker: string): boolean {
  return owner !== undefined && owner !== asker;
}

/** Who asks, for the commands an identity sends; expiry and revival are the registry's own, assignment an admin's. */
function askerOf(cmd: RegistryCommand): string | undefined {
  switch (cmd.kind) {
    case 'register':
    case 'heartbeat':
    case 'deregister':
      return cmd.owner;
    case 'expire':
    case 'revive':
    case 'assign_owner':
      return undefined;
  }
}

function refuseOwned(capabilityId: string): RegistryDecision {
  return decision(
    [],
    [
      {
        type: 'refuse',
        code: 'capability_owned',
        message: `capability ${capabilityId} belongs to another identity; only its owner (or an admin) may change it`,
      },
    ],
  );
}

function decideRegister(
  state: CapabilityState,
  cmd: Extract<RegistryCommand, { kind: 'register' }>,
): RegistryDecision {
  const instance = state.instances[cmd.instanceId];
  const unchanged = instance?.status === 'active' && instance.registrationHash === cmd.registrationHash;
  // An ownerless capability (recorded before owners were) is claimed even by an unchanged registration.
  if (unchanged && state.owner !== undefined) return NO_DECISION;
  return decision([
    {
      type: 'capability_registered',
      payload: {
        registration: cmd.registration,
        instanceId: cmd.instanceId,
        registeredAt: instance?.registeredAt ?? cmd.at,
        registrationHash: cmd.registrationHash,
        owner: cmd.owner,
      },
    },
  ]);
}

/** A heartbeat revives an `inactive` instance; expiry silences an `active` one. Anything else: nothing. */
function decideStatus(
  state: CapabilityState,
  capabilityId: string,
  instanceId: string,
  from: 'active' | 'inactive',
  reason: string,
): RegistryDecision {
  if (state.instances[instanceId]?.status !== from) return NO_DECISION;
  const status = from === 'active' ? 'inactive' : 'active';
  return decision([
    { type: 'capability_status_changed', payload: { capabilityId, instanceId, status, reason } },
  ]);
}

function decideDeregister(
  state: CapabilityState,
  capabilityId: string,
  cmd: Extract<RegistryCommand, { kind: 'deregister' }>,
): RegistryDecision {
  const reason = cmd.reason ? { reason: cmd.reason } : {};
  if (cmd.instanceId === undefined) {
    const live = Object.values(state.instances).some((i) => i.status !== 'deregistered');
    return live
      ? decision([{ type: 'capability_deregistered', payload: { capabilityId, ...reason } }])
      : NO_DECISION;
  }
  const instance = state.instances[cmd.instanceId];
  if (!instance || instance.status === 'deregistered') return NO_DECISION;
  return decision([
    { type: 'capability_deregistered', payload: { capabilityId, instanceId: cmd.instanceId, ...reason } },
  ]);
}

/** An admin's word: the owner changes (a capability nobody registered yet is reserved for it). */
function decideAssignOwner(
  state: CapabilityState,
  capabilityId: string,
  cmd: Extract<RegistryCommand, { kind: 'assign_owner' }>,
): RegistryDecision {
  if (state.owner === cmd.owner) return NO_DECISION;
  const previous = state.owner === undefined ? {} : { previousOwner: state.owner };
  return decision([
    {
      type: 'capability_owner_assigned',
      payload: { capabilityId, owner: cmd.owner, ...previous, assignedBy: cmd.assignedBy },
    },
  ]);
}

/** The refusal a decision carries, if the command was refused. */
export function registryRefusalOf(d: RegistryDecision): RegistryRefusal | undefined {
  return d.effects.find((e) => e.type === 'refuse');
}
