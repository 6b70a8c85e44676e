import { Controller, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import { CancelRunRequestSchema, CancelRunResponseSchema, type CancelRunResponse } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { decideCancel } from '@flex/run-model';
import { RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { AuthGuard, Roles, type AuthedRequest } from '../auth/auth.guard';
import { parseBody, runControlCommand } from '../hitl/run-command';
import { apiError } from '../http/api-error';
import { ApiDoc } from '../openapi/api-doc.decorator';
import { RunsService } from './runs.service';

const RUN_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * Cancel a run: `run_cancelled` ends it wherever it is (planning, running, waiting for a human,
 * paused), closing its pending HITL requests; live streams end on it. Cancelling again answers 200
 * with `alreadyCancelled` and appends nothing; a run that completed or failed is 409
 * `run_already_ended`; an unknown run (or, for a client, another's run) 404.
 */
@Controller('api/v1/flex')
@UseGuards(AuthGuard)
export class RunCancelController {
  constructor(
    private readonly runs: RunsService,
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  @Post('runs/:id/cancel')
  @HttpCode(200)
  @Roles('client', 'operator')
  @ApiDoc({
    summary: 'Cancel a run wherever it is',
    body: { schema: CancelRunRequestSchema, example: { reason: 'no longer needed' }, required: false },
    response: CancelRunResponseSchema,
    errors: {
      404: 'no such run (for a client: none of its own)',
      409: '`run_already_ended`: the run completed or failed',
    },
  })
  async cancel(@Req() req: AuthedRequest, @Param('id') id: string): Promise<CancelRunResponse> {
    const runId = checkRunId(id);
    const { reason } = parseBody(CancelRunRequestSchema, req.body);
    const streamId = await this.runs.assertVisible(req.principal, runId);
    const by = req.principal.id;
    const appended = await runControlCommand(
      this.runtime,
      { streamId, actor: by, span: 'run.cancel' },
      (state) => decideCancel(state, { runId, by, reason }),
    );
    const cancelled = appended.find((e) => e.type === 'run_cancelled') ?? (await this.storedCancel(streamId));
    return {
      ok: true,
      runId,
      status: 'cancelled',
      alreadyCancelled: appended.length === 0,
      event: { id: cancelled.id, position: cancelled.position },
    };
  }

  private async storedCancel(streamId: string): Promise<StoredEvent> {
    const found = (await this.runtime.store.readStream(streamId)).find((e) => e.type === 'run_cancelled');
    if (!found) throw new Error(`${streamId} was refused as cancelled but holds no run_cancelled`);
    return found;
  }
}

function checkRunId(id: string): string {
  if (!RUN_ID.test(id))
    throw apiError(400, 'invalid_run_id', 'run ids are 1–100 letters, digits, _ or -', { path: 'id' });
  return id;
}
