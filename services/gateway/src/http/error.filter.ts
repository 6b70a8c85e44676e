import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isDatabaseUnavailable } from '@flex/event-store';
import type { Logger } from '@flex/runtime';

/** Maps every error to `{error:{code,message,details}}`; unknown errors are logged and hidden. */
@Catch()
export class ApiErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) {
      this.logger.error('error after response started', { error: exception });
      res.end();
      return;
    }
    // A refusal before the body was read (no token, over a limit, too large) leaves it unread:
    // close the connection rather than read and discard what the client is still sending.
    if (!host.switchToHttp().getRequest<Request>().complete) res.setHeader('Connection', 'close');
    if (exception instanceof HttpException) {
      const error = apiErrorBody(exception);
      const retryAfter = (error.details as { retryAfterSeconds?: unknown }).retryAfterSeconds;
      if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
      res.status(exception.getStatus()).json({ error });
      return;
    }
    if (isDatabaseUnavailable(exception)) {
      // Postgres restarting or out of reach: the client tries again (a start with its idempotency key is made once).
      this.logger.warn('database unavailable', { error: String(exception) });
      res.setHeader('Retry-After', '1');
      res.status(503).json({
        error: {
          code: 'store_unavailable',
          message: 'the event store is unavailable; try again',
          details: { retryAfterSeconds: 1 },
        },
      });
      return;
    }
    this.logger.error('unhandled error', { error: exception });
    res.status(500).json({ error: { code: 'internal_error', message: 'internal error', details: {} } });
  }
}

interface ApiErrorBody {
  code: string;
  message: string;
  details: object;
}

/** The error of an HttpException: ours carry it whole; Nest's and express's get a code from the status. */
function apiErrorBody(exception: HttpException): ApiErrorBody {
  const body = exception.getResponse();
  const status = exception.getStatus();
  if (typeof body === 'object' && body !== null && 'error' in body && isApiError(body.error))
    return body.error;
  const message =
    typeof body === 'string' ? body : ((body as { message?: unknown }).message ?? exception.message);
  return { code: status === 404 ? 'not_found' : `http_${status}`, message: String(message), details: {} };
}

function isApiError(value: unknown): value is ApiErrorBody {
  return (
    typeof value === 'object' &&
    value !== null &&
    'code' in value &&
    typeof value.code === 'string' &&
    'details' in value &&
    typeof value.details === 'object' &&
    value.details !== null
  );
}
