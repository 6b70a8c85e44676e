import { describeIssues, type RegistrationIssue } from './capability/registration.validate';

/*
 * What the registry answers a refused request with. Each travels as the bus's error reply (code,
 * message, retryable, details); the gateway maps the code to its HTTP status.
 */

/** The registry refused a registration or a deregistration: the reply names each path and reason. */
export class RegistrationRejected extends Error {
  override readonly name = 'RegistrationRejected';
  readonly code = 'invalid_registration';
  readonly retryable = false;
  readonly details: { issues: RegistrationIssue[] };
  constructor(issues: RegistrationIssue[]) {
    super(`registration rejected: ${describeIssues(issues)}`);
    this.details = { issues };
  }
}

/**
 * Another identity owns the capability. The details name the capability and the path, never the
 * owner: who else runs on this Flex is none of the asker's business.
 */
export class CapabilityOwnedError extends Error {
  override readonly name = 'CapabilityOwnedError';
  readonly code = 'capability_owned';
  readonly retryable = false;
  readonly details: { capabilityId: string; path: string };
  constructor(capabilityId: string, message: string) {
    super(message);
    this.details = { capabilityId, path: 'registration.capabilityId' };
  }
}

/** The identity registered too often; `retryAfterMs` says when the next registration is admitted. */
export class RegistrationRateLimitedError extends Error {
  override readonly name = 'RegistrationRateLimitedError';
  readonly code = 'rate_limited';
  readonly retryable = true;
  readonly details: { retryAfterMs: number };
  constructor(retryAfterMs: number) {
    super(`too many registrations from this identity; retry in ${Math.ceil(retryAfterMs / 1000)} s`);
    this.details = { retryAfterMs };
  }
}
