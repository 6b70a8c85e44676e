import { Controller, Get, Header, HttpException, Inject } from '@nestjs/common';
import { sql } from 'kysely';
import { RUNTIME, type ServiceRuntime } from './runtime';

/** `GET /healthz` (the database answers) and `GET /metrics` (Prometheus text); no auth. */
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
  metrics(): string {
    return this.runtime.metrics.render();
  }
}
