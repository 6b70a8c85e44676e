import type { FlexEventFrame, RunDetail } from '@flex/contracts';
import { api, CliError, type CliContext } from './client';
import { EXIT } from './exit-codes';
import { NOTHING_WATCHED, restingExit, watchRun, type RecordedFrame, type RunWatch } from './run-watch';
import { readSse, type SseMessage } from './sse-client';

/**
 * How far to follow a run's events:
 * - `stored`: what is stored now (`GET runs/:id/events?follow=false`: the server ends the stream);
 * - `rest`: until the run ends, pauses or waits for a human (confirmed with GET runs/:id);
 * - `end`: until the run ends, through pauses and human waits (`--wait`).
 */
export type FollowUntil = 'stored' | 'rest' | 'end';

export interface FollowOptions {
  until: FollowUntil;
  /** The request that started the stream (run.stream) and its abort; else GET runs/:id/events. */
  first?: { res: Response; abort: AbortController };
  /** What is known of the run already (frames up to its `lastPosition` are not asked for again). */
  from?: RunWatch;
  onFrame: (frame: RecordedFrame, watch: RunWatch) => void;
}

/** What the follower saw, and the exit code of where the run stands when it stopped. */
export interface Followed {
  watch: RunWatch;
  exit: number;
}

const QUIET_MS = 600;
const RECONNECTS = 5;

/**
 * Follow a run's events, reconnecting with Last-Event-ID when the connection drops (each event is
 * handed on once, in order). Never waits on a run that rests unless `until` is `end`.
 */
export async function followRun(ctx: CliContext, runId: string, options: FollowOptions): Promise<Followed> {
  let watch = options.from ?? NOTHING_WATCHED;
  let first = options.first;
  for (let failures = 0; ;) {
    const leg = await followLeg(ctx, runId, watch, options, first);
    first = undefined;
    failures = leg.watch.lastPosition > watch.lastPosition ? 0 : failures + 1;
    watch = leg.watch;
    if (leg.exit !== undefined) return { watch, exit: leg.exit };
    // A stored-only stream the server ended is all there is; one that dropped is asked again.
    if (options.until === 'stored' && leg.error === undefined) return { watch, exit: EXIT.ok };
    if (options.until === 'rest' && restingExit(watch) !== undefined) {
      const resting = await restingStatus(ctx, runId);
      if (resting !== undefined) return { watch, exit: resting };
    }
    if (failures > RECONNECTS)
      throw new CliError(
        `lost the event stream of run ${runId}: ${leg.error ?? 'it ended early'}`,
        EXIT.unreachable,
      );
    await new Promise((r) => setTimeout(r, 100 * 2 ** failures));
  }
}

interface Leg {
  watch: RunWatch;
  /** Set when following is over; unset when the stream ended or dropped before that. */
  exit?: number;
  error?: string;
}

async function followLeg(
  ctx: CliContext,
  runId: string,
  from: RunWatch,
  options: FollowOptions,
  first: FollowOptions['first'],
): Promise<Leg> {
  const abort = first?.abort ?? new AbortController();
  let watch = from;
  try {
    const stored = options.until === 'stored';
    const res = first?.res ?? (await openEvents(ctx, runId, from.lastPosition, stored, abort.signal));
    const messages = readSse(res.body as ReadableStream<Uint8Array>);
    for await (const msg of options.until === 'rest' ? quietAware(messages, QUIET_MS) : messages) {
      if (msg === QUIET) {
        const exit = restingExit(watch) === undefined ? undefined : await restingStatus(ctx, runId);
        if (exit !== undefined) return { watch, exit };
        continue;
      }
      // A frame without an `id:` is a live log line of the run (docs/api.md), not one of its events.
      if (msg.id === undefined) continue;
      const frame = { ...(JSON.parse(msg.data) as FlexEventFrame), position: Number(msg.id) };
      if (frame.position <= watch.lastPosition) continue;
      watch = watchRun(watch, frame);
      options.onFrame(frame, watch);
      if (watch.ended) return { watch, exit: restingExit(watch) };
    }
    return { watch };
  } catch (error) {
    if (error instanceof CliError && error.exitCode !== EXIT.unreachable) throw error;
    return { watch, error: (error as Error).message };
  } finally {
    abort.abort();
  }
}

function openEvents(
  ctx: CliContext,
  runId: string,
  after: number,
  storedOnly: boolean,
  signal: AbortSignal,
): Promise<Response> {
  const headers = after > 0 ? { 'Last-Event-ID': String(after) } : undefined;
  const path = `runs/${encodeURIComponent(runId)}/events${storedOnly ? '?follow=false' : ''}`;
  return api(ctx, 'GET', path, undefined, 'text/event-stream', { headers, signal });
}

/** The exit code of a run the read model says is paused or waiting for a human; else undefined. */
async function restingStatus(ctx: CliContext, runId: string): Promise<number | undefined> {
  const detail = (await (await api(ctx, 'GET', `runs/${encodeURIComponent(runId)}`)).json()) as RunDetail;
  if (detail.run.status === 'paused') return EXIT.paused;
  if (detail.run.status === 'awaiting_hitl') return EXIT.waitingForHuman;
  return undefined;
}

const QUIET = Symbol('quiet');

/**
 * The messages of a stream, and QUIET each time none has come for `ms`: when a run seems to rest
 * (paused, or waiting for a human), the moment to ask the read model whether it does.
 */
async function* quietAware(
  messages: AsyncGenerator<SseMessage>,
  ms: number,
): AsyncGenerator<SseMessage | typeof QUIET> {
  let pending = messages.next();
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const quiet = new Promise<typeof QUIET>((r) => (timer = setTimeout(() => r(QUIET), ms)));
      const got = await Promise.race([pending, quiet]);
      clearTimeout(timer);
      if (got === QUIET) {
        yield QUIET;
        continue;
      }
      if (got.done) return;
      pending = messages.next();
      yield got.value;
    }
  } finally {
    pending.catch(() => undefined);
  }
}
