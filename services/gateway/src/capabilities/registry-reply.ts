import type { Response } from 'express';
import { apiError } from '../http/api-error';

/** The registry's refusals as the API's errors (the registry replies with a code; the status is ours). */
const STATUS: Record<string, 400 | 403 | 429> = {
  invalid_registration: 400,
  capability_owned: 403,
  rate_limited: 429,
};

/**
 * Maps an error the registry replied with to the API's error, and a registry that did not answer
 * to 503. A 429 carries `Retry-After` (whole seconds). Anything else is not the registry's to say.
 */
export function registryFailure(error: unknown, res: Response): unknown {
  const e = isRecord(error) ? error : {};
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : 'the registry refused the request';
  const status = STATUS[code];
  if (status === 429) res.setHeader('Retry-After', String(retryAfterSeconds(e.details)));
  if (status !== undefined) return apiError(status, code, message, e.details ?? {});
  if (code === 'NO_RESPONDERS' || code === 'TIMEOUT')
    return apiError(503, 'registry_unavailable', 'the registry did not answer; try again');
  return error;
}

function retryAfterSeconds(details: unknown): number {
  const ms = isRecord(details) && typeof details.retryAfterMs === 'number' ? details.retryAfterMs : 1000;
  return Math.max(1, Math.ceil(ms / 1000));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
