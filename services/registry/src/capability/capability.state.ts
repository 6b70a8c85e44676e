import type { CapabilityRegistration, CapabilityStatus } from '@flex/contracts';
import { typedEvent, type StoredEvent } from '@flex/event-store';

export interface InstanceState {
  status: CapabilityStatus;
  registrationHash: string;
  registeredAt: string;
}

export interface CapabilityState {
  capabilityId?: string;
  registration?: CapabilityRegistration;
  /**
   * The identity that may register, heartbeat and deregister the capability: the first to
   * register it, or the one an admin assigned. Undefined while nobody has (and for registrations
   * recorded before owners were: the next registration claims it).
   */
  owner?: string;
  instances: Record<string, InstanceState>;
}

export const initialCapabilityState = (): CapabilityState => ({ instances: {} });

export function evolveCapability(state: CapabilityState, stored: StoredEvent): CapabilityState {
  const event = typedEvent(stored);
  switch (event?.type) {
    case 'capability_registered': {
      const p = event.payload;
      const previous = state.instances[p.instanceId];
      return {
        capabilityId: p.registration.capabilityId,
        registration: p.registration,
        owner: state.owner ?? p.owner,
        instances: {
          ...state.instances,
          [p.instanceId]: {
            status: 'active',
            registrationHash: p.registrationHash ?? '',
            registeredAt: previous?.registeredAt ?? p.registeredAt,
          },
        },
      };
    }
    case 'capability_owner_assigned': {
      const p = event.payload;
      return { ...state, capabilityId: state.capabilityId ?? p.capabilityId, owner: p.owner };
    }
    case 'capability_status_changed': {
      const p = event.payload;
      return withStatus(state, p.instanceId, p.status);
    }
    case 'capability_deregistered':
      return withStatus(state, event.payload.instanceId, 'deregistered');
    default:
      return state;
  }
}

/** One instance (or, without an id, every instance) takes `status`. */
function withStatus(
  state: CapabilityState,
  instanceId: string | undefined,
  status: CapabilityStatus,
): CapabilityState {
  const ids = instanceId ? [instanceId] : Object.keys(state.instances);
  const instances = { ...state.instances };
  for (const id of ids) if (instances[id]) instances[id] = { ...instances[id], status };
  return { ...state, instances };
}
