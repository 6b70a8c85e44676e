import { decodeSubjectToken, encodeSubjectToken, registryAgentTokens } from '@flex/bus';
import { CapabilityOwnerSchema, IdentifierSchema, zodIssuesToValidationIssues } from '@flex/contracts';
import { z } from 'zod';
import { validateRegistration, type RegistrationIssue } from './capability/registration.validate';
import { RegistrationRejected } from './registry.errors';

/*
 * Requests as they reach the registry, parsed once. Over NATS the subject says who asks
 * (`<prefix>.registry.<verb>.<identity>.<capability>`): the server's permissions pin both tokens,
 * so the registry takes the owner from the subject, never from the body.
 */

export interface Asker {
  identity: string;
  /** The capability token of the subject, still encoded. */
  capabilityToken: string;
}

const reject = (path: string, code: RegistrationIssue['code'], message: string) =>
  new RegistrationRejected([{ path, code, message }]);

/** The identity and capability a registry subject names. */
export function askerOf(subject: string): Asker {
  const tokens = registryAgentTokens(subject);
  let identity: string | undefined;
  try {
    identity = tokens ? decodeSubjectToken(tokens.identity) : undefined;
  } catch {
    identity = undefined;
  }
  if (!tokens || identity === undefined || !CapabilityOwnerSchema.safeParse(identity).success)
    throw reject('subject', 'invalid_identity', `subject ${subject} does not name an identity`);
  return { identity, capabilityToken: tokens.capability };
}

/** The body's capability must be the one the subject (and so the permission) names. */
export function checkSubjectCapability(asker: Asker, capabilityId: string): void {
  if (encodeSubjectToken(capabilityId) !== asker.capabilityToken)
    throw reject(
      'capabilityId',
      'subject_mismatch',
      `the subject names another capability than ${capabilityId}`,
    );
}

/**
 * `{ registration, instanceId? }` or a bare registration. In the wrapped form nothing else may sit
 * beside the two, and an `instanceId` given must be an identifier: a wrong one is refused, never
 * read as the default instance.
 */
export function parseRegister(data: unknown) {
  const body = isRecord(data) ? data : {};
  const wrapped = body.registration !== undefined;
  if (wrapped) {
    const extra = Object.keys(body).find((key) => key !== 'registration' && key !== 'instanceId');
    if (extra !== undefined)
      throw reject(extra, 'invalid_registration', `unknown member ${extra} beside registration`);
    if (body.instanceId !== undefined && !IdentifierSchema.safeParse(body.instanceId).success)
      throw reject('instanceId', 'invalid_registration', 'instanceId must be 1..128 of A-Z a-z 0-9 _ . : -');
  }
  const check = validateRegistration(wrapped ? body.registration : data);
  if (!check.ok) throw new RegistrationRejected(check.issues);
  const { registration } = check;
  const given = wrapped ? body.instanceId : undefined;
  const instanceId = typeof given === 'string' ? given : (registration.instanceId ?? 'default');
  return { registration, instanceId };
}

/** `{ capabilityId, instanceId }`; anything else is dropped (heartbeats get no reply). */
export function parseHeartbeat(data: unknown): { capabilityId: string; instanceId: string } | undefined {
  if (!isRecord(data)) return undefined;
  const { capabilityId, instanceId } = data;
  if (typeof capabilityId !== 'string' || typeof instanceId !== 'string' || !capabilityId || !instanceId)
    return undefined;
  return { capabilityId, instanceId };
}

/** `{ capabilityId, instanceId?, reason? }`. */
export function parseDeregister(data: unknown): {
  capabilityId: string;
  instanceId?: string;
  reason?: string;
} {
  const { capabilityId, instanceId, reason } = isRecord(data) ? data : {};
  if (typeof capabilityId !== 'string' || !capabilityId)
    throw reject('capabilityId', 'invalid_registration', 'capabilityId is required');
  if (instanceId !== undefined && typeof instanceId !== 'string')
    throw reject('instanceId', 'invalid_registration', 'instanceId must be a string');
  return { capabilityId, instanceId, reason: typeof reason === 'string' ? reason.slice(0, 500) : undefined };
}

/** What an admin sends to give a capability an owner. */
export const AssignOwnerRequestSchema = z.strictObject({
  capabilityId: IdentifierSchema,
  owner: CapabilityOwnerSchema,
  assignedBy: CapabilityOwnerSchema,
});

export type AssignOwnerRequest = z.output<typeof AssignOwnerRequestSchema>;

export function parseAssignOwner(data: unknown): AssignOwnerRequest {
  const parsed = AssignOwnerRequestSchema.safeParse(data ?? {}, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw new RegistrationRejected(
    zodIssuesToValidationIssues(parsed.error.issues).map((i) => ({
      path: i.path || '(root)',
      code: 'invalid_registration',
      message: i.message,
    })),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
