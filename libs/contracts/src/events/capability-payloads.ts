import { z } from 'zod';
import {
  CapabilityRegistrationSchema,
  CapabilityStatusSchema,
} from '../capabilities/capability-registration';
import { IdentifierSchema, IsoTimestampSchema, ShortTextSchema } from '../shared/identifiers';

/** `capability_registered`: an instance registered (or re-registered) a capability. */
export const CapabilityRegisteredPayloadSchema = z.strictObject({
  registration: CapabilityRegistrationSchema,
  instanceId: IdentifierSchema,
  registeredAt: IsoTimestampSchema,
  /** `contentHash` of the registration: re-registering the same one appends nothing. */
  registrationHash: z.string().min(1).max(128).optional(),
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
