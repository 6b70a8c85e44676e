import type { CapabilityRegistration } from '@flex/contracts';
import type { DecidedFlexEvent } from '@flex/contracts';
import type { CapabilityState } from './capability.state';

export type RegistryCommand =
  | {
      kind: 'register';
      registration: CapabilityRegistration;
      registrationHash: string;
      instanceId: string;
      at: string;
    }
  | { kind: 'heartbeat'; instanceId: string }
  | { kind: 'expire'; instanceId: string; reason: string }
  | { kind: 'deregister'; instanceId?: string; reason?: string };

/**
 * Registry decisions per capability stream, one instance at a time. Registering an instance that
 * is already active with the same registration appends nothing (an upsert; `registeredAt` is kept
 * across re-registrations); a heartbeat revives an inactive instance; expiry turns an active
 * instance inactive; deregistration is final until the instance registers again (without an
 * instance id, every instance still registered goes).
 */
export function decideCapability(
  state: CapabilityState,
  cmd: RegistryCommand,
  capabilityId = state.capabilityId ?? '',
): DecidedFlexEvent[] {
  const instance = cmd.instanceId === undefined ? undefined : state.instances[cmd.instanceId];
  switch (cmd.kind) {
    case 'register':
      if (instance?.status === 'active' && instance.registrationHash === cmd.registrationHash) return [];
      return [
        {
          type: 'capability_registered',
          payload: {
            registration: cmd.registration,
            instanceId: cmd.instanceId,
            registeredAt: instance?.registeredAt ?? cmd.at,
            registrationHash: cmd.registrationHash,
          },
        },
      ];
    case 'heartbeat':
      if (instance?.status !== 'inactive') return [];
      return [
        {
          type: 'capability_status_changed',
          payload: {
            capabilityId,
            instanceId: cmd.instanceId,
            status: 'active',
            reason: 'heartbeat resumed',
          },
        },
      ];
    case 'expire':
      if (instance?.status !== 'active') return [];
      return [
        {
          type: 'capability_status_changed',
          payload: {
            capabilityId,
            instanceId: cmd.instanceId,
            status: 'inactive',
            reason: cmd.reason.slice(0, 500),
          },
        },
      ];
    case 'deregister': {
      const reason = cmd.reason ? { reason: cmd.reason } : {};
      if (cmd.instanceId === undefined) {
        const live = Object.values(state.instances).some((i) => i.status !== 'deregistered');
        return live ? [{ type: 'capability_deregistered', payload: { capabilityId, ...reason } }] : [];
      }
      if (!instance || instance.status === 'deregistered') return [];
      return [
        { type: 'capability_deregistered', payload: { capabilityId, instanceId: cmd.instanceId, ...reason } },
      ];
    }
  }
}
