import type { RunDetail } from '@flex/contracts';
import { api, CliError, type CliContext } from './client';
import { EXIT } from './exit-codes';
import { readJsonFile } from './json-file';
import { runsPage } from './runs-command';

/** A pending human request, and the run it holds. */
export interface PendingRequest {
  runId: string;
  requestId: string;
  nodeId: string | null;
  rationale: string | null;
  createdAt: string;
  objective: string;
}

/**
 * `flex hitl list [runId] [--json]`: the pending HITL requests of one run, or of every run the
 * token sees that waits for a human or is paused. `--json`: `{ requests: [...] }`.
 */
export async function hitlListCommand(
  ctx: CliContext,
  runId: string | undefined,
  json: boolean,
): Promise<number> {
  const runIds = runId ? [runId] : await restingRunIds(ctx);
  const requests: PendingRequest[] = [];
  for (const id of runIds) requests.push(...pendingOf(await runDetail(ctx, id)));
  if (json) ctx.out(JSON.stringify({ requests }));
  else if (requests.length === 0) ctx.out('no pending HITL requests');
  for (const r of json ? [] : requests)
    ctx.out(`${r.runId}  ${r.requestId}  ${r.nodeId ?? '-'}  ${r.createdAt}  ${r.rationale ?? ''}`);
  return EXIT.ok;
}

export interface ResolveOptions {
  requestId?: string;
  note?: string;
  payloadFile?: string;
  json: boolean;
}

/**
 * `flex hitl approve|reject <runId> [--request id] [--note text] [--payload file.json] [--json]`:
 * decide a pending request of the run (the oldest unless --request names one); `--payload` supplies
 * a node's output when the request asks for one. A run with no such request is exit 1.
 */
export async function hitlResolveCommand(
  ctx: CliContext,
  decision: 'approve' | 'reject',
  runId: string,
  options: ResolveOptions,
): Promise<number> {
  const payload = options.payloadFile === undefined ? undefined : readJsonFile(options.payloadFile);
  const pending = pendingOf(await runDetail(ctx, runId));
  const request = options.requestId ? pending.find((p) => p.requestId === options.requestId) : pending[0];
  if (!request)
    throw new CliError(
      options.requestId
        ? `run ${runId} has no pending HITL request ${options.requestId}`
        : `run ${runId} has no pending HITL request`,
      EXIT.error,
    );
  const body = {
    runId,
    requestId: request.requestId,
    decision,
    ...(options.note ? { note: options.note } : {}),
    ...(payload === undefined ? {} : { payload }),
  };
  const answer = await (await api(ctx, 'POST', 'hitl/resolve', body)).json();
  if (options.json) ctx.out(JSON.stringify(answer));
  else ctx.out(`${decision === 'approve' ? 'approved' : 'rejected'} ${request.requestId} of run ${runId}`);
  return EXIT.ok;
}

async function restingRunIds(ctx: CliContext): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await runsPage(ctx, { status: 'awaiting_hitl,paused', limit: '500', cursor });
    ids.push(...page.runs.map((r) => r.runId));
    cursor = page.next ?? undefined;
  } while (cursor);
  return ids;
}

function pendingOf(detail: RunDetail): PendingRequest[] {
  return detail.hitlRequests
    .filter((h) => h.status === 'pending')
    .map((h) => ({
      runId: detail.run.runId,
      requestId: h.requestId,
      nodeId: h.nodeId,
      rationale: h.rationale,
      createdAt: h.createdAt,
      objective: detail.run.objective,
    }));
}

async function runDetail(ctx: CliContext, runId: string): Promise<RunDetail> {
  return (await (await api(ctx, 'GET', `runs/${encodeURIComponent(runId)}`)).json()) as RunDetail;
}
