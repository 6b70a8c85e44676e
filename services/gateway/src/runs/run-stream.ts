import { INTERNAL_EVENT_TYPES, TERMINAL_EVENT_TYPES } from '@flex/contracts';
import type { ServiceRuntime } from '@flex/runtime';
import type { Request, Response } from 'express';
import { sseFrame } from './event-frame';

const KEEPALIVE_MS = 15_000;
const RECHECK_MS = 1_000;

export function openSse(res: Response): void {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
}

/**
 * Stream a run's events as SSE from after `afterPosition` until a terminal event (or the client
 * leaves). The store is the source: bus notifications only say "look again", so nothing is missed
 * or reordered whatever the bus does. A HITL wait keeps the stream open (the run goes on once an
 * operator answers); a pause ends it once no `run_resumed` follows the `run_paused` (a paused run
 * may stay paused for days: `run.resume` or `GET runs/:id/events` picks it up again).
 */
export async function followRun(runtime: ServiceRuntime, streamId: string, afterPosition: number, req: Request, res: Response): Promise<void> {
  let last = afterPosition;
  let closed = false;
  let dirty = false;
  let wake: (() => void) | undefined;
  const poke = () => {
    dirty = true;
    wake?.();
  };
  req.on('close', () => {
    closed = true;
    poke();
  });
  const unwatch = await runtime.bus.watch(streamId, poke);
  let lastWrite = Date.now();
  let paused = false;
  try {
    while (!closed) {
      dirty = false;
      const events = await runtime.store.readStream(streamId, { afterPosition: last });
      let terminal = false;
      for (const event of events) {
        if (event.type === 'run_paused') paused = true;
        if (event.type === 'run_resumed') paused = false;
        last = event.position;
        if (!(INTERNAL_EVENT_TYPES as readonly string[]).includes(event.type)) {
          res.write(sseFrame(event));
          lastWrite = Date.now();
        }
        if ((TERMINAL_EVENT_TYPES as readonly string[]).includes(event.type)) terminal = true;
      }
      if (terminal) break;
      if (events.length > 0 || dirty) continue;
      // Everything up to now is written and the last word was a pause.
      if (paused) break;
      // Notifications are a hint (best effort); a slow re-read covers a missed one.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, RECHECK_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      if (!closed && Date.now() - lastWrite >= KEEPALIVE_MS) {
        res.write(': keepalive\n\n');
        lastWrite = Date.now();
      }
    }
  } finally {
    await unwatch();
    if (!res.writableEnded) res.end();
  }
}

