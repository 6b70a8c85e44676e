import type { PauseRunResponse, RunDetail } from '@flex/contracts';
import { api, CliError, type CliContext } from './client';
import { EXIT } from './exit-codes';
import { followRun } from './follow';
import { UsageError } from './parse-args';
import { followCommandStream } from './run-command';

export interface ResumeOptions {
  /** The plan version the caller saw (`--plan-version`); default: the run's current one. */
  planVersion?: string;
  wait: boolean;
  json: boolean;
}

/**
 * `flex resume <runId> [--plan-version n] [--wait] [--json]`: resume a paused run (POST run.resume)
 * and follow it as `flex run` does, until it ends, pauses again or waits for a human (with --wait:
 * until it ends). A run that is not paused, or is on another plan version, is the API's 409: one
 * line saying so, exit 1.
 */
export async function resumeCommand(ctx: CliContext, runId: string, options: ResumeOptions): Promise<number> {
  const given = options.planVersion === undefined ? undefined : planVersionOf(options.planVersion);
  const path = `runs/${encodeURIComponent(runId)}`;
  const detail = (await (await api(ctx, 'GET', path)).json()) as RunDetail;
  const expectedPlanVersion = given ?? detail.run.planVersion;
  // What the run did before the pause: the progress block starts from it, the frames are not shown
  // again; and the pause this resume is for (its run_paused id), so a run resumed and paused again
  // meanwhile by someone else is not resumed past a pause nobody here has seen.
  let pauseId: string | undefined;
  const before = await followRun(ctx, runId, {
    until: 'stored',
    onFrame: (frame) => {
      if (frame.type === 'run_paused') pauseId = frame.id;
    },
  });
  const abort = new AbortController();
  const body = { runId, expectedPlanVersion, ...(pauseId ? { pauseId } : {}) };
  const res = await refusedAs409(runId, expectedPlanVersion, given !== undefined, () =>
    api(ctx, 'POST', 'run.resume', body, 'text/event-stream', {
      signal: abort.signal,
    }),
  );
  if (!options.json) ctx.err(`run ${runId} resumed on plan version ${expectedPlanVersion}`);
  return followCommandStream(ctx, runId, { res, abort }, { ...options, from: before.watch });
}

export interface PauseOptions {
  reason?: string;
  json: boolean;
}

/**
 * `flex pause <runId> [--reason text] [--json]`: pause a running run, or one waiting for a human
 * (POST runs/:id/pause, operator). Exit 0 once paused; a run still planning, already paused or
 * ended is the API's 409: one line saying so, exit 1. `flex resume` continues it.
 */
export async function pauseCommand(ctx: CliContext, runId: string, options: PauseOptions): Promise<number> {
  const body = options.reason ? { reason: options.reason } : {};
  const res = await refusedAs409(runId, undefined, false, () =>
    api(ctx, 'POST', `runs/${encodeURIComponent(runId)}/pause`, body),
  );
  const answer = (await res.json()) as PauseRunResponse;
  if (options.json) ctx.out(JSON.stringify(answer));
  else
    ctx.out(`run ${answer.runId} paused (event ${answer.event.position}); flex resume ${runId} continues it`);
  return EXIT.ok;
}

function planVersionOf(text: string): number {
  const n = Number(text);
  if (!/^[0-9]{1,9}$/.test(text) || n < 1)
    throw new UsageError(`--plan-version must be a plan version (1, 2, …), not ${text}`);
  return n;
}

/** The API's 409 said plainly: what the run is, and what to do instead. */
async function refusedAs409(
  runId: string,
  planVersion: number | undefined,
  versionGiven: boolean,
  call: () => Promise<Response>,
): Promise<Response> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof CliError) || error.http?.status !== 409) throw error;
    const what = planVersion === undefined ? 'pause' : 'resume';
    const hint =
      error.http.code === 'stale_plan_version' && versionGiven
        ? ` (run flex resume ${runId} without --plan-version to resume its current plan version)`
        : '';
    throw new CliError(
      `cannot ${what} run ${runId}: ${error.http.message ?? error.message}${hint}`,
      EXIT.error,
      error.http,
    );
  }
}
