import { z } from 'zod';
import {
  CapabilityRegistrationSchema,
  CapabilityStatusSchema,
} from '../capabilities/capability-registration';
import { IdentifierSchema, IsoTimestampSchema, ShortTextSchema } from '../shared/identifiers';

/**
 * Who owns a capability: a NATS identity name, or an API token's principal id (`tok_…`). The
 * first identity to register a capability owns it; only an admin gives it to another.
 */
export const CapabilityOwnerSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'expected 1..64 characters of A-Z a-z 0-9 _ -' });

/** `capability_registered`: an instance registered (or re-registered) a capability. */
export const CapabilityRegisteredPayloadSchema = z.strictObject({
  registration: CapabilityRegistrationSchema,
  instanceId: IdentifierSchema,
  registeredAt: IsoTimestampSchema,
  /** `contentHash` of the registration: re-registering the same one appends nothing. */
  registrationHash: z.string().min(1).max(128).optional(),
  /** The identity that registered it; absent on registrations recorded before owners were. */
  owner: CapabilityOwnerSchema.optional(),
});

/** `capability_owner_assigned`: an admin gave the capability (registered or not yet) an owner. */
export const CapabilityOwnerAssignedPayloadSchema = z.strictObject({
  capabilityId: IdentifierSchema,
  owner: CapabilityOwnerSchema,
  previousOwner: CapabilityOwnerSchema.optional(),
  assignedBy: CapabilityOwnerSchema,
});

/** `capability_status_changed`: availability changed (missed heartbeat, came back). */
export const CapabilityStatusChangedPayloadSchema = z.strictObject({
  capabilityId: IdentifierSchema,
  instanceId: IdentifierSchema.optional(),
  status: CapabilityStatusSchema,
  reason: ShortTextSchema,
});

/** `capability_deregistered`: an instance (or, without `instanceId`, the capability) said goodbye. */
export const CapabilityDeregisteredPayloadSchema = z.strictObject({
  capabilityId: IdentifierSchema,
  instanceId: IdentifierSchema.optional(),
  reason: ShortTextSchema.optional(),
});
