import { runLogsWildcard } from '@flex/bus';
import { runIdFromStreamId } from '@flex/contracts';
import type { ServiceRuntime } from '@flex/runtime';
import type { Response } from 'express';
import type { Principal } from '../auth/api-tokens';
import { tooManyRequests } from '../http/api-error';
import type { ClientLimits } from '../limits/client-limits';
import { logFrame } from './event-frame';
import { pumpRun, RunFeed, type FrameSink, type PumpOptions, type PumpStop } from './run-feed';

const KEEPALIVE_MS = 15_000;
const RECHECK_MS = 1_000;

/**
 * Why a stream stopped (the `reason` of the `flex.sse.streams_closed` counter); `stalled`: the
 * client stopped reading and the server dropped it (see SseSink); `shutdown`: this gateway is
 * stopping, and the client reconnects (to another) with `Last-Event-ID`.
 */
type StopReason = PumpStop | 'error';

/** When a reader counts as stalled: its unsent bytes above `maxBufferBytes` for `graceMs`. */
interface StallRule {
  maxBufferBytes: number;
  graceMs: number;
}

export type FollowOptions = PumpOptions;

/**
 * A slot among the token's open streams (FLEX_LIMIT_STREAMS_PER_TOKEN), taken before the request
 * changes anything, so a refusal (429) appends nothing. Returns its release.
 */
export function reserveStream(limits: ClientLimits, principal: Principal): () => void {
  const slot = limits.openStream(principal.id);
  if (!slot.ok) throw tooManyRequests(slot.refusal);
  return slot.release;
}

export function openSse(res: Response): void {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  // Unless the request carried a body nothing will read (closeUnreadBody): then the stream's end is the connection's.
  if (!res.hasHeader('Connection')) res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
}

/**
 * Stream a run's events as SSE until `options.end` says stop (see StreamEnd) or the client leaves.
 * Every stream (run.stream, run.resume, GET runs/:id/events) is this one loop (pumpRun): the cursor
 * is the run's stream version, so each event is sent once and in order whatever the bus does; the
 * committed events the bus hands over are sent as they are when they are the next version, and the
 * store fills any gap (and a slow re-read covers a lost notification). Nothing ends the loop but the
 * end rule, the client, the gateway shutting down, or an error.
 * `flex_sse_clients` is the number of live streams; `flex_sse_streams_closed_total` says why they ended.
 */
export async function followRun(
  runtime: ServiceRuntime,
  streamId: string,
  options: FollowOptions,
  res: Response,
): Promise<void> {
  const feed = new RunFeed(streamId, RECHECK_MS);
  res.on('close', feed.ring);
  const offStop = runtime.readiness.onStop(feed.ring);
  const unwatch = await runtime.bus.watch(streamId, feed.offer);
  runtime.metrics.sseClients(1);
  const stall = {
    maxBufferBytes: runtime.config.FLEX_LIMIT_SSE_BUFFER_BYTES,
    graceMs: runtime.config.FLEX_LIMIT_SSE_STALL_MS,
  };
  let reason: StopReason = 'error';
  const sink = new SseSink(res, stall);
  const unlog =
    options.end === 'stored' ? async () => undefined : await forwardLogLines(runtime, streamId, sink);
  try {
    reason = await pumpRun(runtime.store, streamId, options, sink, feed, () => runtime.readiness.stopping);
  } finally {
    offStop();
    await unlog().catch(() => undefined);
    unwatch();
    res.off('close', feed.ring);
    if (!res.writableEnded) res.end();
    runtime.metrics.sseClients(-1);
    runtime.metrics.count({ family: 'sseClosed', labels: { reason } });
  }
}

/**
 * The run's log lines, live, as `log` frames between its events (never for `?follow=false`: those
 * are not stored, so a reader of what is stored gets none). Returns the unsubscribe.
 */
async function forwardLogLines(
  runtime: ServiceRuntime,
  streamId: string,
  sink: SseSink,
): Promise<() => Promise<void>> {
  const runId = runIdFromStreamId(streamId);
  if (runId === undefined) return async () => undefined;
  return runtime.messaging.subscribe(runLogsWildcard(runtime.prefix, runId), ({ data }) => {
    if ((data as { runId?: unknown } | null)?.runId === runId) sink.writeLog(logFrame(data as object));
  });
}

/**
 * The response: writes that let a slow client fall behind by up to `maxBufferBytes` of unsent
 * frames, and drop a client that stays further behind than that for `graceMs` (a reader that has
 * stopped reading would otherwise hold the stream, its buffer and its slot forever); a comment
 * when the line is quiet.
 */
class SseSink implements FrameSink {
  private lastWrite = Date.now();
  private logsOpen = true;
  stalled = false;

  constructor(
    private readonly res: Response,
    private readonly stall: StallRule,
  ) {}

  get gone(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  async write(chunk: string): Promise<void> {
    this.lastWrite = Date.now();
    this.res.write(chunk);
    while (!this.gone && this.behind()) {
      const drained = await this.drainedWithin(this.stall.graceMs);
      if (!drained && this.behind()) {
        this.stalled = true;
        this.res.destroy();
      }
    }
  }

  /** A live log frame, unless the stream's last event frame has been written (or the client left). */
  writeLog(chunk: string): void {
    if (this.logsOpen && !this.gone) void this.write(chunk);
  }

  /** From now on, log frames are dropped: the stream is about to end. */
  endLogs(): void {
    this.logsOpen = false;
  }

  /** Proxies drop an idle connection: say something every KEEPALIVE_MS. */
  keepAlive(): void {
    if (this.gone || Date.now() - this.lastWrite < KEEPALIVE_MS) return;
    this.lastWrite = Date.now();
    this.res.write(': keepalive\n\n');
  }

  private behind(): boolean {
    return this.res.writableLength > this.stall.maxBufferBytes;
  }

  /** True once everything written has gone (or the client left); false after `ms`. */
  private drainedWithin(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (drained: boolean) => {
        clearTimeout(timer);
        this.res.off('drain', onDrain);
        this.res.off('close', onDrain);
        resolve(drained);
      };
      const onDrain = () => done(true);
      const timer = setTimeout(() => done(false), ms);
      this.res.on('drain', onDrain);
      this.res.on('close', onDrain);
    });
  }
}
