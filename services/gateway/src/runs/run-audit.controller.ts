import { Controller, Get, Inject, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ChainVerifyQuerySchema, ChainVerifyResponseSchema, type ChainVerifyResponse } from '@flex/contracts';
import {
  chainHead,
  exportLines,
  signHead,
  verifyChain,
  type ArchiveRecord,
  type ChainedEvent,
  type ChainHead,
} from '@flex/event-store';
import { RUNTIME, type ServiceRuntime } from '@flex/runtime';
import type { Response } from 'express';
import { AuthGuard, Roles, type AuthedRequest } from '../auth/auth.guard';
import { apiError } from '../http/api-error';
import { parseQuery } from '../http/query-schema';
import { ApiDoc } from '../openapi/api-doc.decorator';
import { archivedChain, archiveView, findRunArchive } from './archived-run';
import { checkRunId } from './runs.controller';

type RunChain = { runId: string; streamId: string } & (
  | { events: ChainedEvent[]; archive?: undefined }
  | { events: ChainedEvent[]; archive: ArchiveRecord }
  | { events: undefined; archive: ArchiveRecord; unreadable: string }
);
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
    const chain = await this.chain(req, id);
    if (chain.events === undefined)
      throw apiError(500, 'archive_unreadable', chain.unreadable, {
        ...{ runId: chain.runId, location: chain.archive.location },
      });
    // An archived run's export closes with the head kept in Postgres, not the archive's own.
    const head = chain.archive ? chain.archive.head : chainHead(chain.streamId, chain.events);
    const lines = exportLines(chain.events, this.signed(head));
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
      "the end, or a chain rewritten from some event on, are then found too. An archived run's archive " +
      'is checked against the chain head kept in Postgres (`archive` in the answer).',
    query: ChainVerifyQuerySchema,
    response: ChainVerifyResponseSchema,
    errors: { 404: 'no such run', 503: 'the run is archived and its archive cannot be read' },
  })
  async verify(
    @Req() req: AuthedRequest,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<ChainVerifyResponse> {
    const expected = parseQuery(ChainVerifyQuerySchema, query);
    const chain = await this.chain(req, id);
    const { runId, streamId } = chain;
    const given =
      expected.version === undefined || expected.hash === undefined
        ? undefined
        : { streamId, version: expected.version, hash: expected.hash };
    const archive = chain.archive && { archive: archiveView(chain.archive) };
    if (chain.events === undefined)
      return { ...unreadableVerdict(chain.archive.head, chain.unreadable), runId, ...archive };
    const verdict = verifyChain(chain.events, given ?? (chain.archive && unsigned(chain.archive.head)));
    return { ...verdict, runId, head: this.signed(verdict.head), ...archive };
  }

  /** The run's events: stored, or (archived) from its archive, with the archive row. */
  private async chain(req: AuthedRequest, id: string): Promise<RunChain> {
    const runId = checkRunId(id);
    const streamId = await this.runs.assertVisible(req.principal, runId);
    const events = await this.runtime.store.readChain(streamId);
    if (events.length > 0) return { runId, streamId, events };
    const archive = await findRunArchive(this.runtime, streamId);
    if (!archive) throw apiError(404, 'run_not_found', `no run ${runId}`, { runId });
    return { runId, streamId, archive, ...(await archivedChain(this.runtime, archive)) };
  }

  private signed(head: ChainHead) {
    const key = this.runtime.config.FLEX_CHAIN_SIGNING_KEY;
    return key === undefined ? unsigned(head) : signHead(unsigned(head), key);
  }
}

function unsigned({ streamId, version, hash }: ChainHead): ChainHead {
  return { streamId, version, hash };
}

/** An archive that is not an export at all: its first event is as good as edited. */
function unreadableVerdict(head: ChainHead, detail: string) {
  const firstBad = {
    index: 0,
    position: null,
    version: 1,
    eventId: null,
    problem: 'edited' as const,
    detail,
  };
  return { ok: false, events: 0, head: unsigned(head), firstBad };
}
