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
