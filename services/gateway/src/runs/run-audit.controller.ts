import { Controller, Get, Inject, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ChainVerifyQuerySchema, ChainVerifyResponseSchema, type ChainVerifyResponse } from '@flex/contracts';
import { chainHead, exportLines, signHead, verifyChain, type ChainHead } from '@flex/event-store';
import { RUNTIME, type ServiceRuntime } from '@flex/runtime';
import type { Response } from 'express';
import { AuthGuard, Roles, type AuthedRequest } from '../auth/auth.guard';
import { apiError } from '../http/api-error';
import { parseQuery } from '../http/query-schema';
import { ApiDoc } from '../openapi/api-doc.decorator';
import { checkRunId } from './runs.controller';
import { RunsService } from './runs.service';

/**
 * Tamper evidence (docs/AUDIT.md): a run's events with their chain links as NDJSON, and a check that
 * the stored events still form the chain they were written as. Heads are signed (HMAC-SHA256) when
 * FLEX_CHAIN_SIGNING_KEY is set. A client may export and verify the runs it started (what it can
 * already read as events), an operator any run; another's run is a 404, as everywhere.
 */
@Controller('api/v1/flex')
@UseGuards(AuthGuard)
export class RunAuditController {
  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly runs: RunsService,
  ) {}

  @Get('runs/:id/export')
  @Roles('client', 'operator')
  @ApiDoc({
    summary:
      "A run's events with their chain links, then its chain head: NDJSON (flex verify-export checks it)",
    produces: 'application/x-ndjson',
    errors: { 404: 'no such run' },
  })
  async export(@Req() req: AuthedRequest, @Param('id') id: string, @Res() res: Response): Promise<void> {
    const { streamId, events } = await this.chain(req, id);
    const lines = exportLines(events, this.signed(chainHead(streamId, events)));
    res
      .status(200)
      .type('application/x-ndjson')
      .send(`${lines.join('\n')}\n`);
  }

  @Get('runs/:id/verify')
  @Roles('client', 'operator')
  @ApiDoc({
    summary: "Whether a run's stored events still form their chain; the first bad event when not",
    description:
      'Given `version` and `hash` (a head from an export), the chain must also end there: events cut from ' +
      'the end, or a chain rewritten from some event on, are then found too.',
    query: ChainVerifyQuerySchema,
    response: ChainVerifyResponseSchema,
    errors: { 404: 'no such run' },
  })
  async verify(
    @Req() req: AuthedRequest,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<ChainVerifyResponse> {
    const expected = parseQuery(ChainVerifyQuerySchema, query);
    const { runId, streamId, events } = await this.chain(req, id);
    const head =
      expected.version === undefined || expected.hash === undefined
        ? undefined
        : { streamId, version: expected.version, hash: expected.hash };
    const verdict = verifyChain(events, head);
    return { ...verdict, runId, head: this.signed(verdict.head) };
  }

  private async chain(req: AuthedRequest, id: string) {
    const runId = checkRunId(id);
    const streamId = await this.runs.assertVisible(req.principal, runId);
    const events = await this.runtime.store.readChain(streamId);
    if (events.length === 0) throw apiError(404, 'run_not_found', `no run ${runId}`, { runId });
    return { runId, streamId, events };
  }

  private signed(head: ChainHead) {
    const key = this.runtime.config.FLEX_CHAIN_SIGNING_KEY;
    return key === undefined ? head : signHead(head, key);
  }
}
