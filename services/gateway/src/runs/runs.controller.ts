import { Controller, Get, Headers, Inject, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { RUNTIME, type ServiceRuntime } from '@flex/runtime';
import type { Response } from 'express';
import { AuthGuard, CLIENT_LIMITS, Roles, type AuthedRequest } from '../auth/auth.guard';
import { apiError } from '../http/api-error';
import type { ClientLimits } from '../limits/client-limits';
import { ApiDoc } from '../openapi/api-doc.decorator';
import { followRun, openSse, reserveStream } from './run-stream';
import { RunsService } from './runs.service';

const RUN_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** The smallest useful envelope, for the OpenAPI document. */
const EXAMPLE_ENVELOPE = {
  objective: 'Summarize the quarter for the team',
  inputs: {},
  outputContract: {
    schema: { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } } },
  },
};

@Controller('api/v1/flex')
@UseGuards(AuthGuard)
export class RunsController {
  constructor(
    private readonly runs: RunsService,
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(CLIENT_LIMITS) private readonly limits: ClientLimits,
  ) {}

  /** Start a run and stream its events (SSE) until it ends, or until it rests paused (see StreamEnd). */
  @Post('run.stream')
  @Roles('client', 'operator')
  @ApiDoc({
    summary: 'Start a run (a TaskEnvelope) and stream its events until it ends or rests paused',
    headers: ['idempotency-key', 'x-correlation-id', 'traceparent'],
    body: { example: EXAMPLE_ENVELOPE, required: true },
    sse: true,
  })
  async runStream(
    @Req() req: AuthedRequest,
    @Res() res: Response,
    @Headers('x-correlation-id') correlationId?: string,
    @Headers('traceparent') traceparent?: string,
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<void> {
    const release = reserveStream(this.limits, req.principal);
    try {
      const started = await this.runs.start({
        body: req.body,
        principal: req.principal,
        correlationId: clean(correlationId),
        traceparent: clean(traceparent),
        idempotencyKey: clean(idempotencyKey),
      });
      res.setHeader('X-Flex-Run-Id', started.runId);
      openSse(res);
      await followRun(this.runtime, started.streamId, { afterPosition: 0, end: 'terminal_or_rest' }, res);
    } finally {
      release();
    }
  }

  @Get('runs')
  @Roles('client', 'operator')
  @ApiDoc({ summary: 'Recent runs, newest first (a client sees its own)', query: ['limit', 'status'] })
  async list(@Req() req: AuthedRequest, @Query('limit') limit?: string, @Query('status') status?: string) {
    const n = limit === undefined ? 50 : Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > 500)
      throw apiError(400, 'invalid_query', 'limit must be an integer from 1 to 500', { path: 'limit' });
    return { runs: await this.runs.list(req.principal, n, status) };
  }

  @Get('runs/:id')
  @Roles('client', 'operator')
  @ApiDoc({ summary: 'One run: plan versions, nodes, output, HITL requests' })
  async detail(@Req() req: AuthedRequest, @Param('id') id: string) {
    return { ok: true, ...(await this.runs.detail(req.principal, checkRunId(id))) };
  }

  /**
   * Follow a run from the start, or after `Last-Event-ID` (a position), through pauses, until its
   * terminal event; at or past the terminal event it ends at once.
   */
  @Get('runs/:id/events')
  @Roles('client', 'operator')
  @ApiDoc({ summary: "A run's events (SSE), after Last-Event-ID", headers: ['last-event-id'], sse: true })
  async events(
    @Req() req: AuthedRequest,
    @Res() res: Response,
    @Param('id') id: string,
    @Headers('last-event-id') lastEventId?: string,
  ): Promise<void> {
    const streamId = await this.runs.assertVisible(req.principal, checkRunId(id));
    const after = lastEventId === undefined || lastEventId === '' ? 0 : Number(lastEventId);
    if (!Number.isSafeInteger(after) || after < 0)
      throw apiError(
        400,
        'invalid_last_event_id',
        'Last-Event-ID must be an event position (a non-negative integer)',
      );
    const release = reserveStream(this.limits, req.principal);
    try {
      openSse(res);
      await followRun(this.runtime, streamId, { afterPosition: after, end: 'terminal' }, res);
    } finally {
      release();
    }
  }
}

function checkRunId(id: string): string {
  if (!RUN_ID.test(id))
    throw apiError(400, 'invalid_run_id', 'run ids are 1–100 letters, digits, _ or -', { path: 'id' });
  return id;
}

const clean = (v?: string) => (v && v.length <= 256 ? v : undefined);
