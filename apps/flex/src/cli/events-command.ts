import type { RunDetail } from '@flex/contracts';
import { api, type CliContext } from './client';
import { EXIT } from './exit-codes';
import { followRun } from './follow';
import type { RecordedFrame } from './run-watch';

export interface EventsOptions {
  follow: boolean;
  wait: boolean;
  json: boolean;
}

/**
 * `flex events <runId> [--follow] [--wait] [--json]`: the run's events on stdout, one per line
 * (NDJSON with --json). Without --follow, those stored now (exit 0). With --follow, live until the
 * run ends, pauses or waits for a human, reconnecting with Last-Event-ID; --wait (implies --follow)
 * follows through pauses and human waits. Following, the exit code says where the run stands.
 */
export async function eventsCommand(ctx: CliContext, runId: string, options: EventsOptions): Promise<number> {
  const until = options.wait ? 'end' : options.follow ? 'rest' : 'stored';
  const followed = await followRun(ctx, runId, {
    until,
    onFrame: (f) => ctx.out(eventLine(f, options.json)),
  });
  // Codes 3 to 6 say where a followed run stands; the stored events alone are just printed.
  return until === 'stored' ? EXIT.ok : followed.exit;
}

/**
 * `flex replay <runId> [--verify] [--json]`: the run's recorded events (never waits on a run that
 * has not ended). --verify folds them again and checks the audit invariants, then re-decides every
 * recorded decision from the run's export (`GET runs/:id/export`) and compares (exit 9 on a problem
 * or a divergence; a server without the export says the re-decision was not checked; a token the
 * export refuses, a client's, says so and exits 8 once the invariants are checked). `--json`: NDJSON
 * frames, or with --verify one document `{ runId, events, verify, replay }`. Offline, from an
 * export file: see `replayFileCommand`.
 */
export async function replayCommand(
  ctx: CliContext,
  runId: string,
  options: { verify: boolean; json: boolean },
): Promise<number> {
  const frames: RecordedFrame[] = [];
  const streamed = options.json && !options.verify;
  await followRun(ctx, runId, {
    until: 'stored',
    onFrame: (f) => {
      frames.push(f);
      if (!options.json || streamed) ctx.out(eventLine(f, options.json));
    },
  });
  if (!options.verify) return EXIT.ok;
  // Loaded only to verify: the re-decision brings the services' deciders and the runtime (1.4 s).
  const [{ describeReport, redecideRun }, { verifyFrames }] = await Promise.all([
    import('./replay-verify'),
    import('./verify-frames'),
  ]);
  const detail = (await (await api(ctx, 'GET', `runs/${encodeURIComponent(runId)}`)).json()) as RunDetail;
  const problems = verifyFrames(frames, detail);
  const replay = await redecideRun(ctx, runId);
  const ok = !problems.length && !('divergence' in replay && replay.divergence);
  if (options.json)
    ctx.out(JSON.stringify({ runId, events: frames, verify: { ok: !problems.length, problems }, replay }));
  else {
    for (const p of problems) ctx.err(`✗ ${p}`);
    ctx.err(
      problems.length ? `verify: ${problems.length} problem(s)` : `verify: ok (${frames.length} events)`,
    );
    for (const line of describeReport(replay)) ctx.err(line);
  }
  if (!ok) return EXIT.verifyFailed;
  return 'checked' in replay && replay.code === 'forbidden' ? EXIT.unauthorized : EXIT.ok;
}

function eventLine(f: RecordedFrame, json: boolean): string {
  if (json) return JSON.stringify(f);
  return `${String(f.position).padStart(6)}  ${f.timestamp}  ${f.type.padEnd(16)} ${f.message ?? ''}`.trimEnd();
}
