import { contentHash } from '../canonical/canonical-json';
import type { CapabilityRegistration } from '../capabilities/capability-registration';
import { RegistrySnapshotSchema, registrySnapshotOf } from './registry-snapshot';

const registration = (
  capabilityId: string,
  over: Partial<CapabilityRegistration> = {},
): CapabilityRegistration => ({
  capabilityId,
  agentType: 'ai',
  version: '1.0.0',
  displayName: capabilityId,
  summary: 'does things',
  inputContract: ['writerBrief'],
  outputContract: ['copyVariants'],
  ...over,
});

describe('registrySnapshotOf', () => {
  const writer = registration('writer.en');
  const qa = registration('qa.review', {
    version: '2.1.0',
    inputContract: ['copyVariants'],
    outputContract: ['qaFindings'],
  });

  it('records ids, versions, facet and registration hashes, sorted by id, and a hash of the whole', () => {
    const snapshot = registrySnapshotOf([writer, qa]);
    expect(snapshot.capabilities).toEqual([
      {
        capabilityId: 'qa.review',
        version: '2.1.0',
        facetHash: contentHash({ inputContract: ['copyVariants'], outputContract: ['qaFindings'] }),
        registrationHash: contentHash(qa),
      },
      {
        capabilityId: 'writer.en',
        version: '1.0.0',
        facetHash: contentHash({ inputContract: ['writerBrief'], outputContract: ['copyVariants'] }),
        registrationHash: contentHash(writer),
      },
    ]);
    expect(snapshot.hash).toBe(contentHash(snapshot.capabilities));
    expect(RegistrySnapshotSchema.parse(snapshot)).toEqual(snapshot);
  });

  it('does not depend on registry order, and changes with any registration', () => {
    expect(registrySnapshotOf([qa, writer])).toEqual(registrySnapshotOf([writer, qa]));
    expect(registrySnapshotOf([writer, { ...qa, summary: 'reviews' }]).hash).not.toBe(
      registrySnapshotOf([writer, qa]).hash,
    );
    expect(
      registrySnapshotOf([writer, { ...qa, outputContract: ['qaFindings', 'recommendationSet'] }])
        .capabilities[0].facetHash,
    ).not.toBe(registrySnapshotOf([writer, qa]).capabilities[0].facetHash);
    expect(registrySnapshotOf([]).hash).toBe(contentHash([]));
  });

  it('refuses a record whose hash or order does not match its entries', () => {
    const snapshot = registrySnapshotOf([writer, qa]);
    const paths = (value: unknown) =>
      RegistrySnapshotSchema.safeParse(value).error?.issues.map((i) => i.path.join('.'));
    expect(paths({ ...snapshot, capabilities: snapshot.capabilities.slice(1) })).toEqual(['hash']);
    const reversed = [...snapshot.capabilities].reverse();
    expect(paths({ hash: contentHash(reversed), capabilities: reversed })).toEqual(['capabilities']);
  });
});
