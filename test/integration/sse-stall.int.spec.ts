import { loadConfig } from '@flex/runtime';
import { FlexClient, rawRequest, waitFor, type Frame } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { sampleEnvelope } from '../sample-run';
import { trigger } from './lifecycle';
import { head, openRaw, parseHead, stopReadingAfterHead } from './raw-socket';

/**
 * A reader that stops reading its SSE stream (issue 12, point 6), on the embedded Flex over a real
 * socket: once more than FLEX_LIMIT_SSE_BUFFER_BYTES wait unsent for FLEX_LIMIT_SSE_STALL_MS, the
 * server drops the connection and frees the token's stream slot, while a reader that keeps reading
 * keeps its stream however long it lasts. The events flow from a paused run whose manual policy
 * emits a large custom event each time an operator fires it.
 */
const READER = 'sse-reader-token';
const OPERATOR = 'sse-operator-token';
const BUFFER_BYTES = 64 * 1024;
/**
 * Long enough that a reader that reads is never taken for a stalled one on a loaded machine: the
 * rule drops a reader whose backlog (a 600 KB event here) has not drained within it, and the kernel
 * wakes a writer only once half its send buffer (a few MB) has gone, so at 500 ms a reader had to
 * take more than a megabyte a second, and the one catching up on every flood at load average 14 did
 * not (CI, once).
 */
const STALL_MS = 3_000;
/**
 * Short, so that a stream outlives it, but not so short that an operator's request, its head and body
 * a turn of a busy event loop apart (each flood is 600 KB to store and send), gets a 408 on a loaded
 * machine: at 1 s it did once in a full run at load average 14.
 */
const REQUEST_TIMEOUT_MS = 3_000;
/** What each firing appends: far more than the buffer, so the kernel's socket buffers fill in a few. */
const FLOOD_BYTES = 600_000;

describe('a stalled SSE reader is dropped', () => {
  let flex: EmbeddedFlex;
  let reader: FlexClient;
  let operator: FlexClient;
  let runId: string;

  beforeAll(async () => {
    flex = await startEmbedded({
      config: loadConfig({
        FLEX_API_TOKENS: `${READER}:client,${OPERATOR}:operator`,
        FLEX_LOG_LEVEL: 'silent',
        PORT: '0',
        FLEX_LIMIT_SSE_BUFFER_BYTES: String(BUFFER_BYTES),
        FLEX_LIMIT_SSE_STALL_MS: String(STALL_MS),
        FLEX_LIMIT_STREAMS_PER_TOKEN: '1',
        FLEX_LIMIT_HEADERS_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        FLEX_LIMIT_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        FLEX_LIMIT_REQUESTS_PER_SECOND: '1000',
        FLEX_LIMIT_REQUEST_BURST: '1000',
      }),
      dataDir: null,
      agents: true,
    });
    reader = new FlexClient(flex.url, READER);
    operator = new FlexClient(flex.url, OPERATOR);
    const envelope = sampleEnvelope();
    envelope.policies.runtime = [
      { id: 'hold', trigger: { kind: 'onStart' }, action: { type: 'pause', reason: 'held for the test' } },
      {
        id: 'flood',
        trigger: { kind: 'manual' },
        action: { type: 'emit', event: 'flood', payload: { blob: 'x'.repeat(FLOOD_BYTES) } },
      },
    ];
    const started = await reader.runStream(envelope);
    expect(started.frames.at(-1)?.type).toBe('run_paused');
    runId = started.runId ?? '';
  }, 60_000);

  afterAll(async () => {
    await flex?.close();
  });

  /** Fire the flood policy once: one more large event on the run's stream. */
  const flood = async () => expect(await trigger(operator, runId, 'flood')).toHaveLength(2);

  const streamsClosed = async (reason: string): Promise<number> => {
    const metrics = await rawRequest(flex.port, { method: 'GET', target: '/metrics' });
    const line = metrics.body
      .split('\n')
      .find((l) => l.startsWith(`flex_sse_streams_closed_total{reason="${reason}"}`));
    return Number(line?.split(' ')[1] ?? 0);
  };

  const customEvents = (frames: Frame[]) => frames.filter((f) => f.type === 'custom_event').length;

  it('keeps a reader that reads, however long its stream stays open', async () => {
    const live = await reader.follow(runId);
    expect(live.status).toBe(200);
    const before = customEvents(live.frames);
    // Longer than the request timeout: a stream is a response, and the request ended long ago.
    await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS + 1_000));
    for (let i = 0; i < 8; i += 1) await flood();
    await waitFor(
      async () => customEvents(live.frames) === before + 8,
      30_000,
      () => 'the reader fell behind',
    );
    expect(live.isEnded()).toBe(false);
    live.close();
    expect(await streamsClosed('stalled')).toBe(0);
    // Its slot comes back once the server has seen it leave.
    await waitFor(async () => (await streamsClosed('client_left')) === 1, 10_000);
  });

  it('drops a reader that stops reading once it is FLEX_LIMIT_SSE_BUFFER_BYTES behind for FLEX_LIMIT_SSE_STALL_MS, and frees its slot', async () => {
    const stalled = await openRaw(flex.port);
    const stopped = stopReadingAfterHead(stalled);
    stalled.send(head('GET', `/api/v1/flex/runs/${runId}/events`, [`Authorization: Bearer ${READER}`]));
    const pausedAt = await stopped;
    expect(parseHead(stalled.received())).toMatchObject({ status: 200 });
    // The stalled reader holds the token's one stream.
    const second = await reader.follow(runId);
    expect(second.status).toBe(429);

    // One event more than the stream held when the reader stopped, then more until it is dropped.
    await flood();
    let floods = 1;
    await waitFor(
      async () => {
        if ((await streamsClosed('stalled')) === 1) return true;
        await flood();
        floods += 1;
        return false;
      },
      60_000,
      () => `not dropped after ${floods} floods of ${FLOOD_BYTES} bytes`,
    );
    const droppedAfterMs = Date.now() - pausedAt;

    // The slot is free again: the same token opens a new stream, which sees every flood.
    const next = await reader.follow(runId);
    expect(next.status).toBe(200);
    const all = await waitFor(
      async () => customEvents(next.frames) >= 8 + floods && customEvents(next.frames),
      30_000,
    );
    next.close();

    // What the stalled reader is still owed ends where the server gave up: not every event came.
    stalled.socket.resume();
    await stalled.closed;
    const received = stalled.received();
    const got = received.match(/^event: custom_event\ndata: .*\n\n/gm)?.length ?? 0;
    expect(got).toBeLessThan(all);
    const figures = {
      floods,
      floodBytes: FLOOD_BYTES,
      droppedAfterMs,
      receivedBytes: received.length,
      got,
      all,
    };
    console.info(`sse stall: ${JSON.stringify(figures)}`);
  });
});
