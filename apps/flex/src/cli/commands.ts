import { readFileSync } from 'node:fs';
import { canonicalJson, TERMINAL_EVENT_TYPES, type FlexEventFrame } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { compileUntrustedSchema } from '@flex/facets';
import type { RunDetail, RunSummary } from '@flex/read-models';
import { evolveRun, initialRunState } from '@flex/run-model';
import { api, CliError, type CliContext } from './client';
import { findingLines, planningProblems } from './diagnostics-view';
import { readSse } from './sse-client';

/** A frame as the gateway streams it, with the store position its SSE `id:` carries. */
type RecordedFrame = FlexEventFrame & { position: number };

/** `flex run` exits 4 when the run was cancelled. */
const EXIT_CANCELLED = 4;

/**
 * `flex run <envelope.json>`: start a run and show its progress live; exit 0 on complete, 2 on
 * failure, 4 on cancel.
 */
export async function runCommand(ctx: CliContext, file: string): Promise<number> {
  let envelope: unknown;
  try {
    envelope = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const res = await api(ctx, 'POST', 'run.stream', envelope, 'text/event-stream');
  ctx.err(`run ${res.headers.get('x-flex-run-id') ?? ''}`);
  let exit = 1;
  for await (const msg of readSse(res.body as ReadableStream<Uint8Array>)) {
    const frame = JSON.parse(msg.data) as FlexEventFrame;
    ctx.err(`${frame.timestamp.slice(11, 23)}  ${frame.type.padEnd(16)} ${frame.message ?? ''}`);
    const reported = frame.payload && 'diagnostics' in frame.payload ? frame.payload : undefined;
    for (const line of findingLines(frame.type, reported)) ctx.err(line);
    if (frame.type === 'complete') {
      ctx.out(JSON.stringify(frame.payload?.output, null, 2));
      exit = 0;
    }
    if (frame.type === 'run_failed') exit = 2;
    if (frame.type === 'run_cancelled') exit = EXIT_CANCELLED;
  }
  return exit;
}

export async function runsCommand(ctx: CliContext): Promise<number> {
  const { runs } = (await (await api(ctx, 'GET', 'runs?limit=50')).json()) as { runs: RunSummary[] };
  if (runs.length === 0) ctx.out('no runs');
  for (const r of runs)
    ctx.out(
      `${r.runId}  ${r.status.padEnd(10)} v${r.planVersion}  ${r.createdAt}  ${truncate(r.objective, 60)}`,
    );
  return 0;
}

/**
 * `flex replay <runId> [--verify]`: print the run's recorded events; with --verify, fold them again
 * and check the audit invariants against what the API reports.
 */
export async function replayCommand(ctx: CliContext, runId: string, verify: boolean): Promise<number> {
  const res = await api(
    ctx,
    'GET',
    `runs/${encodeURIComponent(runId)}/events`,
    undefined,
    'text/event-stream',
  );
  const frames: RecordedFrame[] = [];
  for await (const msg of readSse(res.body as ReadableStream<Uint8Array>)) {
    const frame = JSON.parse(msg.data) as FlexEventFrame;
    frames.push({ ...frame, position: Number(msg.id) });
    ctx.out(
      `${String(msg.id).padStart(6)}  ${frame.timestamp}  ${frame.type.padEnd(16)} ${frame.message ?? ''}`,
    );
  }
  if (!verify) return 0;
  const detail = await runDetail(ctx, runId);
  const problems = verifyFrames(frames, detail);
  for (const p of problems) ctx.err(`✗ ${p}`);
  ctx.err(problems.length ? `verify: ${problems.length} problem(s)` : `verify: ok (${frames.length} events)`);
  return problems.length ? 3 : 0;
}

export function verifyFrames(frames: RecordedFrame[], detail: RunDetail): string[] {
  const problems: string[] = planningProblems(frames);
  const terminal = frames.filter((f) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(f.type));
  if (terminal.length !== 1) problems.push(`expected exactly one terminal event, found ${terminal.length}`);
  else if (frames[frames.length - 1] !== terminal[0]) problems.push('events follow the terminal event');
  for (let i = 1; i < frames.length; i++)
    if (frames[i].position <= frames[i - 1].position)
      problems.push(`positions not increasing at ${frames[i].position}`);
  const completed = new Set<string>();
  for (const f of frames.filter((x) => x.type === 'node_complete')) {
    const key = `${f.planVersion ?? 0}:${f.payload?.nodeId}`;
    if (completed.has(key))
      problems.push(`node ${f.payload?.nodeId} completed twice in plan v${f.planVersion}`);
    completed.add(key);
  }
  const events = frames.map((f, i): StoredEvent => ({
    position: f.position,
    id: f.id,
    streamId: `run-${f.runId}`,
    version: i + 1,
    type: f.type,
    payload: f.payload,
    metadata: { correlationId: f.correlationId },
    timestamp: f.timestamp,
  }));
  const state = events.reduce(evolveRun, initialRunState());
  const ended = ['completed', 'failed', 'cancelled'].includes(detail.run.status);
  if (state.status !== 'none' && state.status !== detail.run.status && ended) {
    problems.push(`replayed status ${state.status} differs from the read model's ${detail.run.status}`);
  }
  if (state.status === 'completed') {
    const errors = compileUntrustedSchema(state.envelope.outputContract.schema)(state.output);
    if (errors.length) problems.push(`the recorded output breaks the caller schema: ${errors[0].message}`);
    if (detail.output && canonicalJson(detail.output.output) !== canonicalJson(state.output))
      problems.push('the replayed output differs from the stored output');
  }
  return problems;
}

/**
 * `flex hitl <runId> approve|reject [--note text] [--payload file.json]`: resolve the run's pending
 * human request; `--payload` supplies a node's output when the request asks for one.
 */
export async function hitlCommand(
  ctx: CliContext,
  runId: string,
  decision: string,
  options: { note?: string; payloadFile?: string } = {},
): Promise<number> {
  if (decision !== 'approve' && decision !== 'reject')
    throw new CliError('decision must be approve or reject');
  const detail = await runDetail(ctx, runId);
  const pending = detail.hitlRequests.filter((h) => h.status === 'pending');
  if (pending.length === 0) throw new CliError(`run ${runId} has no pending HITL request`);
  let payload: unknown;
  if (options.payloadFile) {
    try {
      payload = JSON.parse(readFileSync(options.payloadFile, 'utf8'));
    } catch (error) {
      throw new CliError(`cannot read ${options.payloadFile}: ${(error as Error).message}`);
    }
  }
  const body = {
    runId,
    requestId: pending[0].requestId,
    decision,
    ...(options.note ? { note: options.note } : {}),
    ...(payload === undefined ? {} : { payload }),
  };
  const res = await api(ctx, 'POST', 'hitl/resolve', body);
  ctx.out(JSON.stringify(await res.json()));
  return 0;
}

export async function rebuildCommand(ctx: CliContext): Promise<number> {
  const res = await api(ctx, 'POST', 'admin/projections/rebuild', {});
  ctx.out(JSON.stringify(await res.json()));
  return 0;
}

/** `GET runs/:id`: the run's read model as the gateway returns it. */
async function runDetail(ctx: CliContext, runId: string): Promise<RunDetail> {
  return (await (await api(ctx, 'GET', `runs/${encodeURIComponent(runId)}`)).json()) as RunDetail;
}

const truncate = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
