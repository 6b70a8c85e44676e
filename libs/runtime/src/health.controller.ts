import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Header, Headers, HttpException, Inject } from '@nestjs/common';
import { sql } from 'kysely';
import { RUNTIME, type ServiceRuntime } from './runtime';

/**
 * `GET /healthz` (the database answers; no auth) and `GET /metrics` (Prometheus text; open, or
 * `Authorization: Bearer <FLEX_METRICS_TOKEN>` when that is set).
 */
@Controller()
export class HealthController {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  @Get('healthz')
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

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4')
  metrics(@Headers('authorization') authorization?: string): string {
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
