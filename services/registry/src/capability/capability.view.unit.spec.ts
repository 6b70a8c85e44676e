import type { CapabilityRow } from '@flex/read-models';
import { buildSnapshot } from './capability.view';

const registration = (version: string) =>
  ({ capabilityId: 'writer.en', version }) as CapabilityRow['registration'];
const row = (
  instanceId: string,
  status: string,
  registeredAt: string,
  lastSeenAt: string | null,
  version = '1',
): CapabilityRow => ({
  capabilityId: 'writer.en',
  instanceId,
  registration: registration(version),
  status,
  registeredAt,
  updatedAt: registeredAt,
  lastSeenAt,
});

describe('buildSnapshot', () => {
  it('lists every instance and counts the active ones; the capability is active while any instance is', () => {
    const { capabilities } = buildSnapshot([
      row('a', 'inactive', '2026-01-01T00:00:00.000Z', '2026-01-01T00:01:00.000Z'),
      row('b', 'active', '2026-01-02T00:00:00.000Z', '2026-01-02T00:05:00.000Z', '2'),
      row('c', 'active', '2026-01-03T00:00:00.000Z', '2026-01-03T00:00:00.000Z'),
    ]);
    expect(capabilities).toHaveLength(1);
    expect(capabilities[0]).toMatchObject({
      status: 'active',
      activeInstances: 2,
      registeredAt: '2026-01-01T00:00:00.000Z',
      lastSeenAt: '2026-01-03T00:00:00.000Z',
    });
    expect(capabilities[0].instances.map((i) => [i.instanceId, i.status])).toEqual([
      ['a', 'inactive'],
      ['b', 'active'],
      ['c', 'active'],
    ]);
  });

  it('is inactive when no instance is active but one is only silent, deregistered when all said goodbye', () => {
    expect(
      buildSnapshot([
        row('a', 'deregistered', '2026-01-01T00:00:00.000Z', null),
        row('b', 'inactive', '2026-01-01T00:00:00.000Z', null),
      ]).capabilities[0],
    ).toMatchObject({ status: 'inactive', activeInstances: 0 });
    expect(
      buildSnapshot([row('a', 'deregistered', '2026-01-01T00:00:00.000Z', null)]).capabilities[0],
    ).toMatchObject({ status: 'deregistered', lastSeenAt: '2026-01-01T00:00:00.000Z' });
  });
});
