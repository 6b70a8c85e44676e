import type { CapabilityRegistration } from '@flex/contracts';
import type { DecidedEvent } from '@flex/runtime';
import type { CapabilityState } from './capability.state';

export type RegistryCommand =
  | { kind: 'register'; registration: CapabilityRegistration; registrationHash: string; instanceId: string; at: string }
  | { kind: 'heartbeat'; instanceId: string }
  | { kind: 'expire'; instanceId: string; reason: string }
  | { kind: 'deregister'; instanceId: string; reason?: string };

/**
 * Registry decisions per capability stream. Registering an instance that is already active with the
 * same registration appends nothing (upsert); a heartbeat revives an inactive instance; expiry turns
 * an active instance inactive; deregistration is final until the instance registers again.
 */
export function decideCapability(state: CapabilityState, cmd: RegistryCommand): DecidedEvent[] {
  const instance = state.instances[cmd.instanceId];
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
      if (!instance || instance.status !== 'inactive') return [];
      return [{ type: 'capability_status_changed', payload: { capabilityId: state.capabilityId, instanceId: cmd.instanceId, status: 'active', reason: 'heartbeat resumed' } }];
    case 'expire':
      if (!instance || instance.status !== 'active') return [];
      return [{ type: 'capability_status_changed', payload: { capabilityId: state.capabilityId, instanceId: cmd.instanceId, status: 'inactive', reason: cmd.reason } }];
    case 'deregister':
      if (!instance || instance.status === 'deregistered') return [];
      return [{ type: 'capability_deregistered', payload: { capabilityId: state.capabilityId, instanceId: cmd.instanceId, reason: cmd.reason } }];
  }
}
