import { Controller, Get, Headers, Inject, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import {
  RunDetailQuerySchema,
  RunDetailSchema,
  RunListQuerySchema,
  RunEventsQuerySchema,
  RunListResponseSchema,
  TaskEnvelopeSchema,
  type RunDetail,
  type RunListResponse,
} from '@flex/contracts';
import { RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { ATTR, contextOf, inSpan, SpanKind, traceparentOf, type SpanOptions } from '@flex/tracing';
import type { Response } from 'express';
import { AuthGuard, CLIENT_LIMITS, Roles, type AuthedRequest } from '../auth/auth.guard';
import { apiError } from '../http/api-error';
import { parseQuery } from '../http/query-schema';
import type { ClientLimits } from '../limits/client-limits';
import { ApiDoc } from '../openapi/api-doc.decorator';
import { streamArchivedRun } from './archived-run';
import { encodeCursor, parseRunListQuery } from './run-list.query';
import { parseLastEventId } from './last-event-id';
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
    description:
      "The body is a TaskEnvelope; legacy shapes from the spec's samples are normalized (the `start` event " +
      'reports how), anything else unknown is a 400 naming the JSON path. The run id is in `X-Flex-Run-Id`.',
    body: { schema: TaskEnvelopeSchema, example: EXAMPLE_ENVELOPE, required: true },
    produces: 'text/event-stream',
    errors: {
      503: 'Flex is still starting (`not_ready`, see GET /readyz), this gateway is shutting down (`shutting_down`), or cannot keep secrets (`secrets_unavailable`)',
    },
  })
  async runStream(
    @Req() req: AuthedRequest,
    @Res() res: Response,
    @Headers('x-correlation-id') correlationId?: string,
    @Headers('traceparent') traceparent?: string,
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<void> {
    const key = idempotencyKeyOf(idempotencyKey);
    const release = reserveStream(this.limits, req.principal);
    try {
      // The run's root span: a child of the caller's trace when its traceparent is valid W3C, else a new trace.
      await inSpan('run.stream', runStreamSpan(traceparent), async (span) => {
        const started = await this.runs.start({
          body: req.body,
          principal: req.principal,
          correlationId: clean(correlationId),
          traceparent: traceparentOf(span),
          idempotencyKey: key,
        });
        span.setAttribute(ATTR.runId, started.runId);
        res.setHeader('X-Flex-Run-Id', started.runId);
        if (started.archive) return streamArchivedRun(this.runtime, started.archive, 0, res);
        openSse(res);
        await followRun(this.runtime, started.streamId, { afterPosition: 0, end: 'terminal_or_rest' }, res);
      });
    } finally {
      release();
    }
  }

  @Get('runs')
  @Roles('client', 'operator')
  @ApiDoc({
    summary: 'Runs, newest first, a page at a time (a client sees its own)',
    query: RunListQuerySchema,
    response: RunListResponseSchema,
  })
  async list(@Req() req: AuthedRequest, @Query() query: Record<string, unknown>): Promise<RunListResponse> {
    const { filter, limit, after } = parseRunListQuery(query);
    const page = await this.runs.list(req.principal, filter, limit, after);
    return { runs: page.runs, next: page.next ? encodeCursor(page.next) : null };
  }

  @Get('runs/:id')
  @Roles('client', 'operator')
  @ApiDoc({
    summary:
      'One run (spec 003 §10.1): envelope, schema hash, plan versions, latest snapshot, nodes, output, HITL',
    description:
      'With `at` (an event position, the SSE `id:`), the run as it stood once that event was applied: its ' +
      'events up to there folded as the read model folds them. Past its last event: as of its last event.',
    query: RunDetailQuerySchema,
    response: RunDetailSchema,
    errors: { 404: 'no such run (for a client: none of its own), or none yet at position `at`' },
  })
  async detail(
    @Req() req: AuthedRequest,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<RunDetail> {
    const { at } = parseQuery(RunDetailQuerySchema, query);
    const runId = checkRunId(id);
    return at === undefined
      ? this.runs.detail(req.principal, runId)
      : this.runs.detailAt(req.principal, runId, at);
  }

  /**
   * Follow a run from the start, or after `Last-Event-ID` (a position), through pauses, until its
   * terminal event; at or past the terminal event it ends at once. `?follow=false`: the events
   * stored now, then the stream ends.
   */
  @Get('runs/:id/events')
  @Roles('client', 'operator')
  @ApiDoc({
    summary: "A run's events (SSE), after Last-Event-ID: live until it ends, or (follow=false) those stored",
    description:
      'With `follow=false` the stream sends the events stored when it has caught up, then ends, ' +
      'wherever the run stands; by default it follows the run through pauses until its terminal event.',
    query: RunEventsQuerySchema,
    headers: ['last-event-id'],
    produces: 'text/event-stream',
    errors: { 404: 'no such run (for a client: none of its own)' },
  })
  async events(
    @Req() req: AuthedRequest,
    @Res() res: Response,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Headers('last-event-id') lastEventId?: string,
  ): Promise<void> {
    const { follow } = parseQuery(RunEventsQuerySchema, query);
    const { streamId, archive } = await this.runs.visibleRun(req.principal, checkRunId(id));
    const after = parseLastEventId(lastEventId);
    if (archive) return streamArchivedRun(this.runtime, archive, after, res);
    const release = reserveStream(this.limits, req.principal);
    try {
      openSse(res);
      const end = follow === 'false' ? 'stored' : 'terminal';
      await followRun(this.runtime, streamId, { afterPosition: after, end }, res);
    } finally {
      release();
    }
  }
}

export function checkRunId(id: string): string {
  if (!RUN_ID.test(id))
    throw apiError(400, 'invalid_run_id', 'run ids are 1–100 letters, digits, _ or -', { path: 'id' });
  return id;
}

const HEADER_MAX_LENGTH = 256;

function runStreamSpan(traceparent: string | undefined): SpanOptions {
  return {
    kind: SpanKind.SERVER,
    parent: contextOf(traceparent),
    attributes: { [ATTR.httpMethod]: 'POST', [ATTR.httpRoute]: '/api/v1/flex/run.stream' },
  };
}

/** A correlation id is a hint: one too long to keep is dropped. */
const clean = (v?: string) => (v && v.length <= HEADER_MAX_LENGTH ? v : undefined);

/**
 * The Idempotency-Key, or none (absent or empty). One too long to keep is a 400, not dropped: a
 * client that sent a key counts on a retry not starting a second run.
 */
function idempotencyKeyOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (value.length > HEADER_MAX_LENGTH)
    throw apiError(
      400,
      'invalid_idempotency_key',
      `Idempotency-Key must be at most ${HEADER_MAX_LENGTH} characters`,
      { limit: HEADER_MAX_LENGTH, length: value.length },
    );
  return value;
}
