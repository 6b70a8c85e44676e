import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { projectionsFor, runArchiveHooks } from '@flex/read-models';
import { nestLogger, startRetention, type Readiness, type ServiceRuntime } from '@flex/runtime';
import type { ProjectionRunner } from '@flex/event-store';
import type { NextFunction, Request, Response } from 'express';
import type { ApiTokens } from '../auth/api-tokens';
import { GatewayModule, type GatewayOptions } from '../gateway.module';
import { ApiErrorFilter } from './error.filter';
import { LimitedExpressAdapter, serverLimitsFrom } from './http-server';
import { JsonBodyInterceptor } from './json-body.interceptor';
import { parseQuery } from './query';

/**
 * The HTTP app: a server with timeouts and a connection cap, a query parser that refuses what it
 * cannot read unambiguously, the JSON body read after the guards (JsonBodyInterceptor), the error
 * filter, the projection loop that keeps the read models current, and retention when configured.
 */
export async function createGatewayApp(
  runtime: ServiceRuntime,
  tokens: ApiTokens,
  options: GatewayOptions = {},
): Promise<INestApplication> {
  const app = await NestFactory.create(
    GatewayModule.forRuntime(runtime, tokens, options),
    new LimitedExpressAdapter(serverLimitsFrom(runtime.config)),
    { bodyParser: false, logger: nestLogger(runtime.logger) },
  );
  const express = app.getHttpAdapter().getInstance();
  express.disable('x-powered-by');
  // express calls it with the raw query string, or null without one.
  express.set('query parser', (raw: string | null) => {
    const parsed = parseQuery(raw ?? '');
    return parsed.ok ? parsed.query : {};
  });
  app.use(closeUnreadBody, refuseBadQuery);
  app.useGlobalInterceptors(new JsonBodyInterceptor());
  app.useGlobalFilters(new ApiErrorFilter(runtime.logger));
  const projections = projectionsFor(runtime.database.db, runtime.store);
  projections.start();
  const caughtUp = catchUpOnce(projections, runtime.readiness);
  runtime.onClose(async () => {
    caughtUp.stop();
    await projections.stop();
  });
  // Retention belongs with the read models it summarizes into (docs/AUDIT.md § Retention).
  startRetention(runtime, runArchiveHooks);
  return app;
}

const CATCH_UP_RETRY_MS = 500;

/**
 * The read models are ready once they have caught up with the store as it was at start (a run
 * listed or shown must not be missing what came before): a startup step of the readiness.
 */
function catchUpOnce(projections: ProjectionRunner, readiness: Readiness): { stop(): void } {
  let stopped = false;
  readiness.pending('projections', 'catching up with the event store');
  void (async () => {
    while (!stopped) {
      try {
        const applied = await projections.catchUp();
        readiness.done('projections', `caught up (${applied} events at start)`);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, CATCH_UP_RETRY_MS));
      }
    }
  })();
  return { stop: () => (stopped = true) };
}

/**
 * Only a POST's body is read (JsonBodyInterceptor). Any other request that carries one is answered
 * on a connection that then closes: Node would otherwise read the unread body and throw it away,
 * for as long as the client sends it (up to the request timeout), before the next request.
 */
function closeUnreadBody(req: Request, res: Response, next: NextFunction): void {
  const declared =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
  if (req.method !== 'POST' && declared && !req.complete) res.setHeader('Connection', 'close');
  next();
}

/** A duplicated or undecodable query parameter is a 400 naming it, on every route, before routing. */
function refuseBadQuery(req: Request, res: Response, next: NextFunction): void {
  const mark = req.url.indexOf('?');
  const parsed = parseQuery(mark < 0 ? '' : req.url.slice(mark + 1));
  if (parsed.ok) return next();
  if (!req.complete) res.setHeader('Connection', 'close');
  res.status(400).json({ error: parsed.problem });
}
