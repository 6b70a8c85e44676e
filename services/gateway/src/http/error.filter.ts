import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { Response } from 'express';
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
    if (exception instanceof HttpException) {
      const body = exception.getResponse();
      const status = exception.getStatus();
      if (
        typeof body === 'object' &&
        body !== null &&
        typeof (body as { error?: unknown }).error === 'object'
      ) {
        res.status(status).json(body);
        return;
      }
      const message =
        typeof body === 'string' ? body : ((body as { message?: unknown }).message ?? exception.message);
      res.status(status).json({
        error: {
          code: status === 404 ? 'not_found' : `http_${status}`,
          message: String(message),
          details: {},
        },
      });
      return;
    }
    this.logger.error('unhandled error', { error: exception });
    res.status(500).json({ error: { code: 'internal_error', message: 'internal error', details: {} } });
  }
}
