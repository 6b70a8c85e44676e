import { Controller, Inject, Post, UseGuards } from '@nestjs/common';
import { ProjectionsRebuiltResponseSchema } from '@flex/contracts';
import { projectionsFor } from '@flex/read-models';
import { RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { AuthGuard, Roles } from '../auth/auth.guard';
import { ApiDoc } from '../openapi/api-doc.decorator';

@Controller('api/v1/flex/admin')
@UseGuards(AuthGuard)
export class AdminController {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  /** Drop every read model and rebuild it from position 0 of the event store. */
  @Post('projections/rebuild')
  @Roles('admin')
  @ApiDoc({
    summary: 'Drop the read models and rebuild them from position 0',
    response: ProjectionsRebuiltResponseSchema,
  })
  async rebuild() {
    const runner = projectionsFor(this.runtime.database.db, this.runtime.store);
    const started = Date.now();
    const rebuilt: Record<string, unknown> = {};
    for (const name of ['runs', 'capabilities']) rebuilt[name] = await runner.rebuild(name);
    return { ok: true, rebuilt, durationMs: Date.now() - started };
  }
}
