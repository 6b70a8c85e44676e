import { Controller, HttpCode, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import {
  PauseRunRequestSchema,
  PauseRunResponseSchema,
  PolicyTriggerResponseSchema,
  ResumeRequestSchema,
  type PauseRunResponse,
} from '@flex/contracts';
import { decideManualTrigger, decidePause, resumeDecider } from '@flex/run-model';
import { RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { AuthGuard, CLIENT_LIMITS, Roles, type AuthedRequest } from '../auth/auth.guard';
import { parseBody, runControlCommand, runLimits } from '../hitl/run-command';
import { apiError } from '../http/api-error';
import type { ClientLimits } from '../limits/client-limits';
import { ApiDoc } from '../openapi/api-doc.decorator';
import { followRun, openSse, reserveStream } from './run-stream';
import { RunsService } from './runs.service';

const ID = /^[A-Za-z0-9_.:-]{1,100}$/;

/** Operator control of a running run: manual policy triggers, pausing it and resuming it. */
@Controller('api/v1/flex')
@UseGuards(AuthGuard)
export class RunControlController {
  constructor(
    private readonly runs: RunsService,
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(CLIENT_LIMITS) private readonly limits: ClientLimits,
  ) {}

  /** Fire a `manual` runtime policy now: 404 unknown run or policy, 409 when the run has ended. */
  @Post('runs/:id/policies/:policyId/trigger')
  @HttpCode(200)
  @Roles('operator')
  @ApiDoc({
    summary: 'Fire a manual runtime policy of a run now',
    response: PolicyTriggerResponseSchema,
    errors: { 404: 'no such run or policy', 409: 'the run has ended' },
  })
  async trigger(@Req() req: AuthedRequest, @Param('id') id: string, @Param('policyId') policyId: string) {
    const runId = check(id, 'id');
    const streamId = await this.runs.assertVisible(req.principal, runId);
    const limits = runLimits(this.runtime);
    const appended = await runControlCommand(
      this.runtime,
      { streamId, actor: req.principal.id, span: 'policy.trigger' },
      (state) =>
        decideManualTrigger(state, runId, check(policyId, 'policyId'), this.runtime.clock.now(), limits),
    );
    return {
      ok: true,
      runId,
      policyId,
      events: appended.map((e) => ({ type: e.type, position: e.position })),
    };
  }

  /**
   * Pause a run without a policy: `run_paused` with the operator and the reason. The executor starts
   * nothing more until `run.resume` (agent calls already under way finish and are recorded); pending
   * HITL requests stay pending. 409 `invalid_run_state` when the run is planning, paused or ended.
   */
  @Post('runs/:id/pause')
  @HttpCode(200)
  @Roles('operator')
  @ApiDoc({
    summary: 'Pause a running run (or one waiting for a human) until run.resume',
    body: { schema: PauseRunRequestSchema, example: { reason: 'checking the brief' }, required: false },
    response: PauseRunResponseSchema,
    errors: {
      404: 'no such run',
      409: '`invalid_run_state`: the run is still planning, already paused, or has ended',
    },
  })
  async pause(@Req() req: AuthedRequest, @Param('id') id: string): Promise<PauseRunResponse> {
    const runId = check(id, 'id');
    const { reason } = parseBody(PauseRunRequestSchema, req.body);
    const streamId = await this.runs.assertVisible(req.principal, runId);
    const by = req.principal.id;
    const appended = await runControlCommand(
      this.runtime,
      { streamId, actor: by, span: 'run.pause' },
      (state) => decidePause(state, { runId, by, reason }),
    );
    const paused = appended.find((e) => e.type === 'run_paused');
    if (!paused) throw new Error(`pausing ${runId} appended no run_paused`);
    return { ok: true, runId, status: 'paused', event: { id: paused.id, position: paused.position } };
  }

  /**
   * Resume a paused run from its snapshot, without replanning, and stream the rest (SSE from
   * `run_resumed` until the run ends or rests paused again).
   * 409 `stale_plan_version` / `invalid_run_state`, 404 unknown run; of two
   * concurrent resumes exactly one wins (expected-version append), the other gets 409.
   */
  @Post('run.resume')
  @Roles('client', 'operator')
  @ApiDoc({
    summary: 'Resume a paused run from its snapshot and stream the rest',
    body: {
      schema: ResumeRequestSchema,
      example: { runId: 'run_0123', expectedPlanVersion: 1 },
      required: true,
    },
    produces: 'text/event-stream',
    errors: {
      404: 'no such run',
      409: '`stale_plan_version` (expectedPlanVersion is not the current one) or `invalid_run_state`',
    },
  })
  async resume(@Req() req: AuthedRequest, @Res() res: Response): Promise<void> {
    const body = parseBody(ResumeRequestSchema, req.body);
    const streamId = await this.runs.assertVisible(req.principal, body.runId);
    const release = reserveStream(this.limits, req.principal);
    try {
      // A resumed run works again: it takes one of the caller's working runs, like a start.
      const appended = await this.runs.withWorkingRun(req.principal, () =>
        runControlCommand(
          this.runtime,
          { streamId, actor: req.principal.id, span: 'run.resume' },
          resumeDecider(
            body.runId,
            body.expectedPlanVersion,
            req.principal.id,
            runLimits(this.runtime),
            () => this.runtime.clock.now(),
            body.pauseId,
          ),
        ),
      );
      res.setHeader('X-Flex-Run-Id', body.runId);
      openSse(res);
      const afterPosition = appended[0].position - 1;
      await followRun(this.runtime, streamId, { afterPosition, end: 'terminal_or_rest' }, res);
    } finally {
      release();
    }
  }
}

function check(value: string, path: string): string {
  if (!ID.test(value))
    throw apiError(400, 'invalid_path_parameter', `${path} must be 1–100 letters, digits, _ . : or -`, {
      path,
    });
  return value;
}
