import type { CapabilityRegistration, CapabilityStatus, EventPayload } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';

export interface InstanceState {
  status: CapabilityStatus;
  registrationHash: string;
  registeredAt: string;
}

export interface CapabilityState {
  capabilityId?: string;
  registration?: CapabilityRegistration;
  instances: Record<string, InstanceState>;
}

export const initialCapabilityState = (): CapabilityState => ({ instances: {} });

export function evolveCapability(state: CapabilityState, event: StoredEvent): CapabilityState {
  switch (event.type) {
    case 'capability_registered': {
      const p = event.payload as EventPayload<'capability_registered'>;
      const previous = state.instances[p.instanceId];
      return {
        capabilityId: p.registration.capabilityId,
        registration: p.registration,
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
    case 'capability_status_changed':
    case 'capability_deregistered': {
      const p = event.payload as EventPayload<'capability_status_changed'>;
      const status: CapabilityStatus = event.type === 'capability_deregistered' ? 'deregistered' : p.status;
      const ids = p.instanceId ? [p.instanceId] : Object.keys(state.instances);
      const instances = { ...state.instances };
      for (const id of ids) if (instances[id]) instances[id] = { ...instances[id], status };
      return { ...state, instances };
    }
    default:
      return state;
  }
}
