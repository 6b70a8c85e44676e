import { HttpException } from '@nestjs/common';

/** The one error shape of the API: `{ error: { code, message, details } }` with the right status. */
export function apiError(
  status: number,
  code: string,
  message: string,
  details: unknown = {},
): HttpException {
  return new HttpException({ error: { code, message, details } }, status);
}

/** A 429: the error filter turns `details.retryAfterSeconds` into the `Retry-After` header. */
export function tooManyRequests(refusal: {
  code: string;
  message: string;
  limit: number;
  retryAfterSeconds: number;
}): HttpException {
  return apiError(429, refusal.code, refusal.message, {
    limit: refusal.limit,
    retryAfterSeconds: refusal.retryAfterSeconds,
  });
}
