import fc from 'fast-check';
import type { StoredEvent } from '@flex/event-store';
import type { CapabilityRegistration } from '@flex/contracts';
import { decideCapability, registryRefusalOf, type RegistryCommand } from './capability.decide';
import { evolveCapability, initialCapabilityState, type CapabilityState } from './capability.state';

const registration = {
  capabilityId: 'writer.en',
  agentType: 'ai',
  version: '1',
  displayName: 'Writer',
  summary: 'Writes.',
  inputContract: ['writerBrief'],
  outputContract: ['copyVariants'],
} as CapabilityRegistration;

const T0 = '2026-01-01T00:00:00.000Z';

/** Given these commands were decided (and their events folded), the capability's state. */
function given(...cmds: RegistryCommand[]): CapabilityState {
  let state = initialCapabilityState();
  let position = 0;
  for (const cmd of cmds) {
    for (const d of decideCapability(state, cmd, 'writer.en').events) {
      position += 1;
      const event = {
        type: d.type,
        payload: d.payload,
        position,
        version: position,
        id: `e${position}`,
        streamId: 'capability-writer.en',
        metadata: {},
        timestamp: T0,
      } as unknown as StoredEvent;
      state = evolveCapability(state, event);
    }
  }
  return state;
}

/** When `cmd` is decided on `state`: its events (type and payload) and its refusal, if any. */
const when = (state: CapabilityState, cmd: RegistryCommand) => {
  const decided = decideCapability(state, cmd, 'writer.en');
  return { events: decided.events, refusal: registryRefusalOf(decided) };
};

const register = (instanceId: string, at = T0, hash = 'h1', owner = 'alice'): RegistryCommand => ({
  kind: 'register',
  registration,
  registrationHash: hash,
  instanceId,
  at,
  owner,
});
const heartbeat = (instanceId: string, owner = 'alice'): RegistryCommand => ({
  kind: 'heartbeat',
  instanceId,
  owner,
});
const expire = (instanceId: string, reason = 'silent'): RegistryCommand => ({
  kind: 'expire',
  instanceId,
  reason,
});
const deregister = (instanceId?: string, owner = 'alice', reason?: string): RegistryCommand => ({
  kind: 'deregister',
  instanceId,
  reason,
  owner,
});
const assign = (owner: string, assignedBy = 'tok_admin'): RegistryCommand => ({
  kind: 'assign_owner',
  owner,
  assignedBy,
});

describe('decideCapability: instances', () => {
  it('registers a new instance with its registeredAt and its owner', () => {
    expect(when(initialCapabilityState(), register('a')).events).toEqual([
      {
        type: 'capability_registered',
        payload: { registration, instanceId: 'a', registeredAt: T0, registrationHash: 'h1', owner: 'alice' },
      },
    ]);
  });

  it('treats the same registration of an active instance as an upsert that appends nothing', () => {
    expect(when(given(register('a')), register('a', '2026-01-02T00:00:00.000Z'))).toEqual({
      events: [],
      refusal: undefined,
    });
  });

  it('keeps registeredAt when an instance re-registers with a changed registration or after going inactive', () => {
    const changed = when(given(register('a')), register('a', '2026-01-05T00:00:00.000Z', 'h2'));
    expect(changed.events[0].payload).toMatchObject({ registeredAt: T0, registrationHash: 'h2' });
    const revived = when(given(register('a'), expire('a')), register('a', '2026-01-05T00:00:00.000Z'));
    expect(revived.events[0].payload).toMatchObject({ registeredAt: T0 });
  });

  it('expires an active instance once, and a heartbeat revives it once', () => {
    const active = given(register('a'));
    expect(when(active, heartbeat('a')).events).toEqual([]);
    expect(when(active, expire('a', 'no heartbeat for 45s')).events).toEqual([
      {
        type: 'capability_status_changed',
        payload: {
          capabilityId: 'writer.en',
          instanceId: 'a',
          status: 'inactive',
          reason: 'no heartbeat for 45s',
        },
      },
    ]);
    const inactive = given(register('a'), expire('a'));
    expect(when(inactive, expire('a')).events).toEqual([]);
    expect(when(inactive, heartbeat('a')).events).toEqual([
      {
        type: 'capability_status_changed',
        payload: {
          capabilityId: 'writer.en',
          instanceId: 'a',
          status: 'active',
          reason: 'heartbeat resumed',
        },
      },
    ]);
    expect(when(inactive, { kind: 'revive', instanceId: 'a' }).events).toEqual(
      when(inactive, heartbeat('a')).events,
    );
  });

  it('tracks instances separately: expiring one leaves the other active', () => {
    const state = given(register('a'), register('b', '2026-01-01T00:00:01.000Z'), expire('a'));
    expect(state.instances).toEqual({
      a: expect.objectContaining({ status: 'inactive' }),
      b: expect.objectContaining({ status: 'active', registeredAt: '2026-01-01T00:00:01.000Z' }),
    });
  });

  it('deregisters an instance once; a heartbeat does not bring a deregistered instance back', () => {
    const state = given(register('a'), deregister('a', 'alice', 'signal:SIGTERM'));
    expect(state.instances.a.status).toBe('deregistered');
    expect(when(state, deregister('a')).events).toEqual([]);
    expect(when(state, heartbeat('a')).events).toEqual([]);
    expect(when(state, deregister('unknown')).events).toEqual([]);
  });

  it('deregisters every instance when no instance id is given', () => {
    const state = given(register('a'), register('b'), deregister());
    expect(Object.values(state.instances).map((i) => i.status)).toEqual(['deregistered', 'deregistered']);
    expect(when(state, deregister()).events).toEqual([]);
  });
});

describe('decideCapability: ownership', () => {
  const owned = { type: 'refuse', code: 'capability_owned', message: expect.stringContaining('writer.en') };

  it('the first identity to register owns the capability; nobody else may register, heartbeat or deregister it', () => {
    const state = given(register('a'), expire('a'));
    expect(state.owner).toBe('alice');
    for (const cmd of [register('a', T0, 'h1', 'mallory'), register('m', T0, 'h9', 'mallory')])
      expect(when(state, cmd)).toEqual({ events: [], refusal: owned });
    expect(when(state, heartbeat('a', 'mallory'))).toEqual({ events: [], refusal: owned });
    expect(when(state, deregister('a', 'mallory'))).toEqual({ events: [], refusal: owned });
    expect(when(state, deregister(undefined, 'mallory'))).toEqual({ events: [], refusal: owned });
    // The owner still can.
    expect(when(state, heartbeat('a')).events).toHaveLength(1);
  });

  it('a refusal names the capability but not its owner', () => {
    const { refusal } = when(given(register('a')), register('m', T0, 'h1', 'mallory'));
    expect(refusal?.message).not.toContain('alice');
  });

  it('deregistering does not give the capability up: it stays its owner’s', () => {
    const state = given(register('a'), deregister());
    expect(when(state, register('m', T0, 'h1', 'mallory')).refusal).toEqual(owned);
    expect(when(state, register('a')).events).toHaveLength(1);
  });

  it('an admin assigns an owner, to a registered capability or to one nobody registered yet', () => {
    const reserved = given(assign('bob'));
    expect(reserved.owner).toBe('bob');
    expect(when(reserved, register('a')).refusal).toEqual(owned);
    expect(when(reserved, register('b', T0, 'h1', 'bob')).events[0].payload).toMatchObject({ owner: 'bob' });

    const moved = when(given(register('a')), assign('bob'));
    expect(moved.events).toEqual([
      {
        type: 'capability_owner_assigned',
        payload: { capabilityId: 'writer.en', owner: 'bob', previousOwner: 'alice', assignedBy: 'tok_admin' },
      },
    ]);
    const after = given(register('a'), assign('bob'));
    expect(when(after, heartbeat('a', 'alice')).refusal).toEqual(owned);
    expect(when(after, assign('bob')).events).toEqual([]);
  });

  it('a capability recorded before owners were is claimed by its next registration, even an unchanged one', () => {
    const legacy = evolveCapability(initialCapabilityState(), {
      type: 'capability_registered',
      payload: { registration, instanceId: 'a', registeredAt: T0, registrationHash: 'h1' },
      position: 1,
      version: 1,
      id: 'e1',
      streamId: 'capability-writer.en',
      metadata: {},
      timestamp: T0,
    } as unknown as StoredEvent);
    expect(legacy.owner).toBeUndefined();
    const claimed = when(legacy, register('a'));
    expect(claimed.events[0].payload).toMatchObject({ owner: 'alice', registeredAt: T0 });
  });

  it('for any history, a command from anyone but the owner changes nothing (property)', () => {
    const identity = fc.constantFrom('alice', 'bob', 'mallory');
    const instance = fc.constantFrom('a', 'b');
    const command: fc.Arbitrary<RegistryCommand> = fc.oneof(
      fc.tuple(instance, fc.constantFrom('h1', 'h2'), identity).map(([i, h, o]) => register(i, T0, h, o)),
      fc.tuple(instance, identity).map(([i, o]) => heartbeat(i, o)),
      instance.map((i) => expire(i)),
      fc.tuple(fc.option(instance, { nil: undefined }), identity).map(([i, o]) => deregister(i, o)),
      identity.map((o) => assign(o)),
    );
    fc.assert(
      fc.property(fc.array(command, { maxLength: 12 }), command, (history, next) => {
        const state = given(...history);
        const decided = when(state, next);
        const asker = next.kind === 'register' || next.kind === 'heartbeat' || next.kind === 'deregister';
        if (asker && state.owner !== undefined && next.owner !== state.owner) {
          expect(decided).toEqual({ events: [], refusal: owned });
        } else {
          expect(decided.refusal).toBeUndefined();
        }
        // Only an admin's assignment ever changes an owner once there is one.
        const after = given(...history, next);
        if (state.owner !== undefined && next.kind !== 'assign_owner') expect(after.owner).toBe(state.owner);
      }),
    );
  });
});
