import type { StoredEvent } from '@flex/event-store';
import type { CapabilityRegistration } from '@flex/contracts';
import { decideCapability, type RegistryCommand } from './capability.decide';
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

let position = 0;
function given(...cmds: Array<[RegistryCommand]>): CapabilityState {
  let state = initialCapabilityState();
  for (const [cmd] of cmds) {
    for (const d of decideCapability(state, cmd, 'writer.en')) {
      position += 1;
      const event = {
        type: d.type,
        payload: d.payload,
        position,
        version: position,
        id: `e${position}`,
        streamId: 'cap-writer.en',
        metadata: {},
        timestamp: '2026-01-01T00:00:00.000Z',
      } as unknown as StoredEvent;
      state = evolveCapability(state, event);
    }
  }
  return state;
}

const register = (instanceId: string, at: string, hash = 'h1'): [RegistryCommand] => [
  { kind: 'register', registration, registrationHash: hash, instanceId, at },
];

describe('decideCapability', () => {
  it('registers a new instance with its registeredAt', () => {
    expect(
      decideCapability(initialCapabilityState(), register('a', '2026-01-01T00:00:00.000Z')[0], 'writer.en'),
    ).toEqual([
      {
        type: 'capability_registered',
        payload: expect.objectContaining({
          instanceId: 'a',
          registeredAt: '2026-01-01T00:00:00.000Z',
          registrationHash: 'h1',
        }),
      },
    ]);
  });

  it('treats the same registration of an active instance as an upsert that appends nothing', () => {
    const state = given(register('a', '2026-01-01T00:00:00.000Z'));
    expect(decideCapability(state, register('a', '2026-01-02T00:00:00.000Z')[0])).toEqual([]);
  });

  it('keeps registeredAt when an instance re-registers with a changed registration or after going inactive', () => {
    const changed = given(register('a', '2026-01-01T00:00:00.000Z'));
    expect(
      decideCapability(changed, register('a', '2026-01-05T00:00:00.000Z', 'h2')[0])[0].payload,
    ).toMatchObject({ registeredAt: '2026-01-01T00:00:00.000Z', registrationHash: 'h2' });
    const inactive = given(register('a', '2026-01-01T00:00:00.000Z'), [
      { kind: 'expire', instanceId: 'a', reason: 'silent' },
    ]);
    expect(decideCapability(inactive, register('a', '2026-01-05T00:00:00.000Z')[0])[0].payload).toMatchObject(
      { registeredAt: '2026-01-01T00:00:00.000Z' },
    );
  });

  it('expires an active instance once, and a heartbeat revives it once', () => {
    const active = given(register('a', '2026-01-01T00:00:00.000Z'));
    expect(decideCapability(active, { kind: 'heartbeat', instanceId: 'a' })).toEqual([]);
    const expired = decideCapability(active, {
      kind: 'expire',
      instanceId: 'a',
      reason: 'no heartbeat for 45s',
    });
    expect(expired).toEqual([
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
    const inactive = given(register('a', '2026-01-01T00:00:00.000Z'), [
      { kind: 'expire', instanceId: 'a', reason: 'x' },
    ]);
    expect(decideCapability(inactive, { kind: 'expire', instanceId: 'a', reason: 'x' })).toEqual([]);
    expect(decideCapability(inactive, { kind: 'heartbeat', instanceId: 'a' })).toEqual([
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
  });

  it('tracks instances separately: expiring one leaves the other active', () => {
    const state = given(
      register('a', '2026-01-01T00:00:00.000Z'),
      register('b', '2026-01-01T00:00:01.000Z'),
      [{ kind: 'expire', instanceId: 'a', reason: 'x' }],
    );
    expect(state.instances).toEqual({
      a: expect.objectContaining({ status: 'inactive' }),
      b: expect.objectContaining({ status: 'active', registeredAt: '2026-01-01T00:00:01.000Z' }),
    });
  });

  it('deregisters an instance once; a heartbeat does not bring a deregistered instance back', () => {
    const state = given(register('a', '2026-01-01T00:00:00.000Z'), [
      { kind: 'deregister', instanceId: 'a', reason: 'signal:SIGTERM' },
    ]);
    expect(state.instances.a.status).toBe('deregistered');
    expect(decideCapability(state, { kind: 'deregister', instanceId: 'a' })).toEqual([]);
    expect(decideCapability(state, { kind: 'heartbeat', instanceId: 'a' })).toEqual([]);
    expect(decideCapability(state, { kind: 'deregister', instanceId: 'unknown' })).toEqual([]);
  });

  it('deregisters every instance when no instance id is given', () => {
    const state = given(
      register('a', '2026-01-01T00:00:00.000Z'),
      register('b', '2026-01-01T00:00:00.000Z'),
      [{ kind: 'deregister' }],
    );
    expect(Object.values(state.instances).map((i) => i.status)).toEqual(['deregistered', 'deregistered']);
    expect(decideCapability(state, { kind: 'deregister' })).toEqual([]);
  });
});
