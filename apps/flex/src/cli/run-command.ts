import { api, type CliContext } from './client';
import { EXIT } from './exit-codes';
import { followRun, type Followed, type FollowOptions } from './follow';
import { readJsonFile } from './json-file';
import { progressFor } from './progress';
import type { RunWatch } from './run-watch';

export interface RunOptions {
  wait: boolean;
  json: boolean;
}

/**
 * `flex run <envelope.json> [--wait] [--json]`: start a run and show its progress until it ends,
 * pauses or waits for a human (with --wait: until it ends). On complete the output goes to stdout
 * (with --json the frames do, as NDJSON); the exit code says where the run stands (EXIT).
 */
export async function runCommand(ctx: CliContext, file: string, options: RunOptions): Promise<number> {
  const envelope = readJsonFile(file);
  const abort = new AbortController();
  const res = await api(ctx, 'POST', 'run.stream', envelope, 'text/event-stream', { signal: abort.signal });
  const runId = res.headers.get('x-flex-run-id') ?? '';
  if (!options.json) ctx.err(`run ${runId}`);
  return followCommandStream(ctx, runId, { res, abort }, options);
}

/**
 * Follow the stream a command started (run.stream, run.resume) with live progress, until the run
 * ends, pauses or waits for a human (with `wait`: until it ends); say where it stands, and answer the
 * exit code. `from`: what is known of the run already.
 */
export async function followCommandStream(
  ctx: CliContext,
  runId: string,
  first: NonNullable<FollowOptions['first']>,
  options: RunOptions & { from?: RunWatch },
): Promise<number> {
  const progress = progressFor(ctx, options.json);
  let followed: Followed;
  try {
    followed = await followRun(ctx, runId, {
      until: options.wait ? 'end' : 'rest',
      first,
      from: options.from,
      onFrame: (f, w) => progress.frame(f, w),
    });
  } finally {
    progress.close();
  }
  if (!options.json) reportOutcome(ctx, runId, followed);
  return followed.exit;
}

/** Where the run stands, for a person: the output on stdout when it completed, else one line. */
export function reportOutcome(ctx: CliContext, runId: string, { watch, exit }: Followed): void {
  switch (exit) {
    case EXIT.ok:
      if (watch.ended === 'complete') ctx.out(JSON.stringify(watch.output, null, 2));
      return;
    case EXIT.failed:
      return ctx.err(`run ${runId} failed: ${watch.reason ?? ''}`);
    case EXIT.cancelled:
      return ctx.err(`run ${runId} was cancelled: ${watch.reason ?? ''}`);
    case EXIT.paused:
      return ctx.err(`run ${runId} is paused: flex resume ${runId} continues it`);
    case EXIT.waitingForHuman:
      return ctx.err(
        `run ${runId} is waiting for a human: flex hitl approve|reject ${runId} (add --wait to wait for it)`,
      );
  }
}
