import { z } from 'zod';
import type { CapabilityRegistration } from '../capabilities/capability-registration';
import { contentHash } from '../canonical/canonical-json';
import { IdentifierSchema, Sha256HexSchema } from '../shared/identifiers';

/** One capability as the planner saw it: its id, version and content hashes. */
export const RegistryEntrySchema = z.strictObject({
  capabilityId: IdentifierSchema,
  version: z.string().min(1).max(64),
  /** sha256 of the canonical `{ inputContract, outputContract }`: the facets it reads and writes. */
  facetHash: Sha256HexSchema,
  /** sha256 of the canonical registration: the value the planner's `inputHash` counts. */
  registrationHash: Sha256HexSchema,
});

/** See {@link RegistryEntrySchema}. */
export type RegistryEntry = z.infer<typeof RegistryEntrySchema>;

/**
 * The registry a planner drafted over (spec 004 replay): every active capability it was given,
 * sorted by id, and `hash`, the sha256 of the canonical `capabilities` list. Two drafts that saw the
 * same registry carry the same hash; a replay finds the exact registrations by `registrationHash`
 * in the capability streams. The schema checks the order and the hash, so a record cannot drift.
 */
export const RegistrySnapshotSchema = z
  .strictObject({ hash: Sha256HexSchema, capabilities: z.array(RegistryEntrySchema).max(5_000) })
  .superRefine((snapshot, ctx) => {
    const ids = snapshot.capabilities.map((c) => c.capabilityId);
    if (ids.some((id, i) => i > 0 && ids[i - 1] >= id)) {
      const message = 'capabilities are sorted by capabilityId, each once';
      ctx.addIssue({ code: 'custom', path: ['capabilities'], message, params: { code: 'unsorted' } });
    }
    if (contentHash(snapshot.capabilities) !== snapshot.hash) {
      const message = 'hash is not the sha256 of the canonical capabilities list';
      ctx.addIssue({ code: 'custom', path: ['hash'], message, params: { code: 'hash_mismatch' } });
    }
  });

/** See {@link RegistrySnapshotSchema}. */
export type RegistrySnapshot = z.infer<typeof RegistrySnapshotSchema>;

/** The snapshot of the registrations a planner is given (any order in; sorted by id out). */
export function registrySnapshotOf(registrations: readonly CapabilityRegistration[]): RegistrySnapshot {
  const capabilities = registrations
    .map((r) => ({
      capabilityId: r.capabilityId,
      version: r.version,
      facetHash: contentHash({ inputContract: r.inputContract, outputContract: r.outputContract }),
      registrationHash: contentHash(r),
    }))
    .sort((a, b) => (a.capabilityId < b.capabilityId ? -1 : a.capabilityId > b.capabilityId ? 1 : 0));
  return { hash: contentHash(capabilities), capabilities };
}
