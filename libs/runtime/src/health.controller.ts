import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Header, Headers, HttpException, Inject, Res } from '@nestjs/common';
import { HealthResponseSchema, ReadinessResponseSchema, type ReadinessResponse } from '@flex/contracts';
import type { Response } from 'express';
import { sql } from 'kysely';
import { ApiDoc } from './api-doc';
import { RUNTIME, type ServiceRuntime } from './runtime';

/**
 * `GET /healthz` (alive: the database answers; no auth), `GET /readyz` (ready to take work; no
 * auth) and `GET /metrics` (Prometheus text; open, or `Authorization: Bearer <FLEX_METRICS_TOKEN>`
 * when that is set).
 */
@Controller()
export class HealthController {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  @Get('healthz')
  @ApiDoc({
    summary: 'Liveness: the process runs and its database answers (it may still be starting: see /readyz)',
    response: HealthResponseSchema,
    errors: { 503: 'the database does not answer' },
  })
  async health(): Promise<{ status: 'ok'; mode: string }> {
    try {
      await sql`select 1`.execute(this.runtime.database.db);
    } catch (error) {
      throw new HttpException(
        { error: { code: 'unhealthy', message: 'database unreachable', details: {} } },
        503,
        { cause: error },
      );
    }
    return { status: 'ok', mode: this.runtime.mode };
  }

  /**
   * Readiness: 200 once the process takes work; 503 with the checks that do not hold yet. A run
   * started once this answers 200 finds the capabilities the system ships registered.
   */
  @Get('readyz')
  @ApiDoc({
    summary: 'Readiness: every startup step done (migrations, agents registered, read models caught up)',
    response: ReadinessResponseSchema,
    errors: {
      503: { description: 'not ready: the checks that do not hold', schema: ReadinessResponseSchema },
    },
  })
  async ready(@Res({ passthrough: true }) res: Response): Promise<ReadinessResponse> {
    const report = await this.runtime.readiness.report();
    res.status(report.status === 'ready' ? 200 : 503);
    res.setHeader('Cache-Control', 'no-store');
    return { ...report, service: this.runtime.service, mode: this.runtime.mode };
  }

  @Get('metrics')
  @ApiDoc({
    summary: 'Prometheus metrics (text); with FLEX_METRICS_TOKEN set, only for that bearer token',
    produces: 'text/plain',
    errors: { 401: 'FLEX_METRICS_TOKEN is set and the request does not carry it' },
  })
  @Header('Content-Type', 'text/plain; version=0.0.4')
  metrics(@Headers('authorization') authorization?: string): Promise<string> {
    const expected = this.runtime.config.FLEX_METRICS_TOKEN;
    if (expected !== undefined && !bearerMatches(authorization, expected))
      throw new HttpException(
        {
          error: {
            code: 'unauthorized',
            message: 'GET /metrics needs Authorization: Bearer <FLEX_METRICS_TOKEN>',
            details: {},
          },
        },
        401,
      );
    return this.runtime.metrics.render();
  }
}

/** Compared as digests, so the time taken says nothing about how much of the token matched. */
function bearerMatches(header: string | undefined, expected: string): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (given === undefined) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
