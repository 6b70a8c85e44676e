import { Controller, HttpCode, Inject, Optional, Post, Req, UseGuards } from '@nestjs/common';
import {
  normalizeRuntimePolicies,
  PolicyWhatIfRequestSchema,
  PolicyWhatIfResponseSchema,
  runStreamId,
  WHAT_IF_RUNS_DEFAULT,
  WHAT_IF_RUNS_MAX,
  type PolicyWhatIfRequest,
  type RuntimePolicy,
} from '@flex/contracts';
import { chainHead, exportLines } from '@flex/event-store';
import { parseExportFile, type WhatIfReport } from '@flex/replay';
import { RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { AuthGuard, Roles, type AuthedRequest } from '../auth/auth.guard';
import { parseBody } from '../hitl/run-command';
import { apiError } from '../http/api-error';
import { ApiDoc } from '../openapi/api-doc.decorator';
import { RunsService } from '../runs/runs.service';
import { WHAT_IF_ENGINE, whatIfWithin, type WhatIfEngine } from './policy-what-if';

const FINISHED = ['completed', 'failed', 'cancelled'] as const;

/** Policy what-if (docs/AUDIT.md): recorded runs re-decided with candidate runtime policies; nothing written. */
@Controller('api/v1/flex/admin')
@UseGuards(AuthGuard)
export class PolicyWhatIfController {
  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly runs: RunsService,
    @Optional() @Inject(WHAT_IF_ENGINE) private readonly engine?: WhatIfEngine,
  ) {}

  @Post('policy-what-if')
  @HttpCode(200)
  @Roles('operator')
  @ApiDoc({
    summary: 'Which recorded decisions candidate runtime policies would change, per run and in total',
    description:
      'Each run is re-decided up to its first divergence; nothing is appended and no run is touched. ' +
      `Default: the ${WHAT_IF_RUNS_DEFAULT} newest finished runs (created since \`since\`).`,
    body: {
      schema: PolicyWhatIfRequestSchema,
      example: {
        policies: { runtime: [{ id: 'review', trigger: { kind: 'onStart' }, action: { type: 'hitl' } }] },
        since: '2026-11-01T00:00:00Z',
        limit: 20,
      },
      required: true,
    },
    response: PolicyWhatIfResponseSchema,
    errors: {
      404: 'a run named in `runs` does not exist',
      413: `\`too_many_runs\`: more than ${WHAT_IF_RUNS_MAX} runs asked for`,
      422: '`what_if_budget_exceeded`: the work took longer than the time budget (FLEX_WHAT_IF_BUDGET_MS)',
      501: '`what_if_unavailable`: this gateway process cannot re-decide runs (use flex policy what-if)',
    },
  })
  async whatIf(@Req() req: AuthedRequest): Promise<WhatIfReport> {
    const body = parseBody(PolicyWhatIfRequestSchema, req.body);
    const policies = candidate(body.policies);
    const engine = this.engine;
    if (!engine)
      throw apiError(
        501,
        'what_if_unavailable',
        'this gateway process (services/gateway/dist/main.js) cannot re-decide runs: run apps/flex/dist/gateway-main.js, or flex policy what-if',
      );
    const ids = await this.select(req, body);
    const read = async (runId: string) => {
      const streamId = runStreamId(runId);
      const events = await this.runtime.store.readChain(streamId);
      if (events.length === 0) throw apiError(404, 'run_not_found', `no run ${runId}`, { runId });
      // As GET runs/:id/export writes it and flex replay --verify reads it: one path for the record.
      return parseExportFile(exportLines(events, chainHead(streamId, events)).join('\n'));
    };
    const now = () => this.runtime.clock.now().getTime();
    return whatIfWithin(ids, policies, engine, read, now, { since: body.since, mode: body.mode });
  }

  private async select(req: AuthedRequest, body: PolicyWhatIfRequest): Promise<string[]> {
    const asked = body.runs?.length ?? body.limit ?? WHAT_IF_RUNS_DEFAULT;
    if (asked > WHAT_IF_RUNS_MAX)
      throw apiError(
        413,
        'too_many_runs',
        `at most ${WHAT_IF_RUNS_MAX} runs per what-if, asked for ${asked}`,
        {
          path: body.runs ? 'runs' : 'limit',
          max: WHAT_IF_RUNS_MAX,
        },
      );
    if (body.runs) return [...new Set(body.runs)];
    const page = await this.runs.list(req.principal, { statuses: FINISHED, since: body.since }, asked);
    return page.runs.map((r) => r.runId);
  }
}

/** The candidate set, as an envelope's runtime policies are validated: a 400 naming each path. */
function candidate(raw: unknown): RuntimePolicy[] {
  const result = normalizeRuntimePolicies(raw);
  if (result.ok) return result.runtime;
  const issues = result.errors.map((e) => ({ ...e, path: e.path ? `policies.${e.path}` : 'policies' }));
  throw apiError(400, 'invalid_policies', `${issues[0].path}: ${issues[0].message}`, { issues });
}
