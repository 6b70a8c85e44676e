import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { projectionsFor } from '@flex/read-models';
import type { ServiceRuntime } from '@flex/runtime';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { ApiTokens } from '../auth/api-tokens';
import { GatewayModule } from '../gateway.module';
import { ApiErrorFilter } from './error.filter';

/** Every request body is JSON, whatever its Content-Type says (curl -d sends form encoding by default). */
export const BODY_LIMIT = '1mb';

/**
 * The HTTP app: our own JSON body parser (1 MiB) so malformed and oversized bodies get the API's
 * error shape, the error filter, and the projection loop that keeps the read models current.
 */
export async function createGatewayApp(
  runtime: ServiceRuntime,
  tokens: ApiTokens,
): Promise<INestApplication> {
  const app = await NestFactory.create(GatewayModule.forRuntime(runtime, tokens), {
    bodyParser: false,
    logger: ['error', 'warn'],
  });
  app.use(express.json({ limit: BODY_LIMIT, strict: false, type: () => true }));
  app.use(
    (
      err: { type?: string; status?: number; message?: string },
      _req: Request,
      res: Response,
      next: NextFunction,
    ) => {
      if (!err) return next();
      const tooLarge = err.type === 'entity.too.large';
      res.status(tooLarge ? 413 : 400).json({
        error: {
          code: tooLarge ? 'payload_too_large' : 'invalid_json',
          message: tooLarge
            ? `the body exceeds ${BODY_LIMIT}`
            : `the body is not valid JSON: ${err.message ?? ''}`,
          details: {},
        },
      });
    },
  );
  app.useGlobalFilters(new ApiErrorFilter(runtime.logger));
  app.getHttpAdapter().getInstance().disable('x-powered-by');
  const projections = projectionsFor(runtime.database.db, runtime.store);
  projections.start();
  runtime.onClose(() => projections.stop());
  return app;
}
