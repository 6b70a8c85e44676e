import type { FlexEventFrame } from '@flex/contracts';
import { waitFor } from './processes';

/** A frame as tests read it, plus the SSE `id:` line (the event's position). */
export type Frame = Omit<FlexEventFrame, 'payload'> & { payload?: any; position: number };

/** A minimal client of the public HTTP/SSE interface (DESIGN §7), for black-box tests. */
export class FlexClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json', ...extra };
  }

  async json(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: this.headers(),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  /** The ids of the capabilities the registry sees active now (GET capabilities). */
  async activeCapabilityIds(): Promise<string[]> {
    const { body } = await this.json('GET', '/api/v1/flex/capabilities');
    return (body?.capabilities ?? [])
      .filter((c: { status: string }) => c.status === 'active')
      .map((c: { registration: { capabilityId: string } }) => c.registration.capabilityId);
  }

  /** POST run.stream and collect every frame until the server ends the stream. */
  async runStream(
    envelope: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; frames: Frame[]; body?: any; runId?: string }> {
    const res = await fetch(`${this.baseUrl}/api/v1/flex/run.stream`, {
      method: 'POST',
      headers: this.headers({ Accept: 'text/event-stream', ...headers }),
      body: JSON.stringify(envelope),
    });
    if (!res.headers.get('content-type')?.includes('text/event-stream'))
      return { status: res.status, frames: [], body: await res.json() };
    return {
      status: res.status,
      frames: parseSse(await res.text()),
      runId: res.headers.get('x-flex-run-id') ?? undefined,
    };
  }

  /**
   * Open an SSE response and read it as it arrives: `frames` grows live, `ended` resolves with
   * every frame once the server ends the stream. A non-SSE answer (an error) ends at once, with
   * its JSON in `body`.
   */
  async openStream(method: 'GET' | 'POST', path: string, options: StreamOptions = {}): Promise<LiveStream> {
    const abort = new AbortController();
    const extra: Record<string, string> = { Accept: 'text/event-stream' };
    if (options.lastEventId !== undefined) extra['Last-Event-ID'] = String(options.lastEventId);
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: this.headers(extra),
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: abort.signal,
    });
    const frames: Frame[] = [];
    let done = false;
    const stream: LiveStream = {
      status: res.status,
      headers: res.headers,
      frames,
      ended: Promise.resolve(frames),
      isEnded: () => done,
      close: () => abort.abort(),
    };
    if (!res.headers.get('content-type')?.includes('text/event-stream') || !res.body) {
      stream.body = await res.json();
      done = true;
      return stream;
    }
    stream.ended = collectSse(res.body, frames)
      .then(
        () => frames,
        (error: unknown) => {
          if (abort.signal.aborted) return frames;
          throw error;
        },
      )
      .finally(() => {
        done = true;
      });
    return stream;
  }

  /** GET runs/:id/events as a live stream (from the start, or after `lastEventId`). */
  follow(runId: string, lastEventId?: number): Promise<LiveStream> {
    return this.openStream('GET', `/api/v1/flex/runs/${runId}/events`, { lastEventId });
  }

  /** POST run.stream as a live stream; the run id is in `runId`. */
  async start(envelope: unknown): Promise<LiveStream & { runId: string }> {
    const stream = await this.openStream('POST', '/api/v1/flex/run.stream', { body: envelope });
    return Object.assign(stream, { runId: stream.headers.get('x-flex-run-id') ?? '' });
  }

  /** POST run.resume as a live stream (of the pause `pauseId`, when given). */
  resume(runId: string, expectedPlanVersion: number, pauseId?: string): Promise<LiveStream> {
    const body = { runId, expectedPlanVersion, ...(pauseId ? { pauseId } : {}) };
    return this.openStream('POST', '/api/v1/flex/run.resume', { body });
  }

  /**
   * GET runs/:id once its read model has applied the event at `position` (`run.lastPosition`).
   * A read waits only briefly for the read models (docs/api.md): on a shared Postgres, a long
   * transaction anywhere on the server holds their gap-safe tail back (another suite's chaos test
   * holds one for seconds), so a client that must see an event it streamed checks `lastPosition`.
   */
  async runDetailThrough(runId: string, position: number, timeoutMs = 30_000): Promise<any> {
    let last: unknown;
    return waitFor(
      async () => {
        const { status, body } = await this.json('GET', `/api/v1/flex/runs/${runId}`);
        last = { status, lastPosition: body?.run?.lastPosition };
        return status === 200 && Number(body.run.lastPosition) >= position ? body : undefined;
      },
      timeoutMs,
      () => `run ${runId}'s read model never reached position ${position}: ${JSON.stringify(last)}`,
    );
  }

  /** Until the registry lists at least `count` capabilities as active. */
  async waitForActiveCapabilities(count: number, timeoutMs: number, describe?: () => string): Promise<void> {
    await waitFor(
      async () => {
        const { body } = await this.json('GET', '/api/v1/flex/capabilities');
        return body?.capabilities?.filter((c: { status?: string }) => c.status === 'active').length >= count;
      },
      timeoutMs,
      describe,
    );
  }

  /** The run's stored events (GET runs/:id/events?follow=false), after `lastEventId`; never waits. */
  async events(runId: string, lastEventId?: number): Promise<Frame[]> {
    const res = await fetch(`${this.baseUrl}/api/v1/flex/runs/${runId}/events?follow=false`, {
      headers: this.headers(lastEventId === undefined ? {} : { 'Last-Event-ID': String(lastEventId) }),
    });
    if (!res.ok) throw new Error(`events ${res.status}: ${await res.text()}`);
    return parseSse(await res.text());
  }
}

export interface StreamOptions {
  body?: unknown;
  lastEventId?: number;
}

/** An SSE response being read (see {@link FlexClient.openStream}). */
export interface LiveStream {
  status: number;
  headers: Headers;
  /** The frames received so far, in arrival order. */
  frames: Frame[];
  /** Every frame, once the server ended the stream (or `close()` was called). */
  ended: Promise<Frame[]>;
  isEnded(): boolean;
  /** Leave: abort the request. */
  close(): void;
  /** The JSON body of a non-SSE answer. */
  body?: unknown;
}

/** Append each complete SSE frame of `body` to `frames` as it arrives. */
async function collectSse(body: ReadableStream<Uint8Array>, frames: Frame[]): Promise<void> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const cut = buffer.lastIndexOf('\n\n');
    if (cut < 0) continue;
    frames.push(...parseSse(buffer.slice(0, cut + 2)));
    buffer = buffer.slice(cut + 2);
  }
}

interface SseBlock {
  id?: string;
  event?: string;
  data: string;
}

function sseBlocks(text: string): SseBlock[] {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').filter((l) => !l.startsWith(':')))
    .filter((lines) => lines.some((l) => l.startsWith('data:')))
    .map((lines) => {
      const field = (name: string) =>
        lines
          .find((l) => l.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trim();
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      return { id: field('id'), event: field('event'), data };
    });
}

/** The run's event frames of an SSE text (live `log` frames, which have no `id:`, left out). */
export function parseSse(text: string): Frame[] {
  return sseBlocks(text)
    .filter((block) => block.id !== undefined)
    .map((block) => ({ ...JSON.parse(block.data), position: Number(block.id) }) as Frame);
}

/** The live log lines of an SSE text: `event: log` frames without an `id:` (docs/api.md). */
export function parseLogFrames(text: string): Array<Record<string, unknown>> {
  return sseBlocks(text)
    .filter((block) => block.id === undefined && block.event === 'log')
    .map((block) => JSON.parse(block.data) as Record<string, unknown>);
}

/** Wait until the registry reports at least `count` active capabilities (the agents registered). */
export async function waitForActiveCapabilities(
  client: FlexClient,
  count: number,
  timeoutMs: number,
  describe?: () => string,
): Promise<void> {
  await waitFor(
    async () => {
      const res = await client.json('GET', '/api/v1/flex/capabilities');
      const active = (res.body?.capabilities ?? []).filter((c: { status?: string }) => c.status === 'active');
      return active.length >= count;
    },
    timeoutMs,
    describe,
  );
}
