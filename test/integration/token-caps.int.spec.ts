import { loadConfig } from '@flex/runtime';
import {
  FlexClient,
  rawRequest,
  startOpenAiServer,
  waitFor,
  type LiveStream,
  type OpenAiServer,
  type RawResponse,
} from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { sampleEnvelope } from '../sample-run';
import { head, openRaw, type RawClient } from './raw-socket';

/**
 * Each API token's caps (issue 12, point 6) over HTTP on the embedded Flex: past its rate, its
 * requests in flight, its open streams or its working runs a token gets 429 with a Retry-After and a
 * JSON error naming the cap; another token is served meanwhile, and the capped token is served again
 * once it has waited. The reference agents ask a model that never answers, so a started run stays
 * working until it is cancelled.
 */
const RATE = 2;
const BURST = 6;
const IN_FLIGHT = 3;
const STREAMS = 2;
const RUNS = 1;
const TOKENS = ['rate', 'conn', 'stream', 'runs'].flatMap((cap) => [`${cap}-a-token`, `${cap}-b-token`]);

describe('per-token caps: 429 with Retry-After, one token at a time', () => {
  let llm: OpenAiServer;
  let flex: EmbeddedFlex;
  const open: Array<LiveStream | RawClient> = [];
  const started: Array<[FlexClient, string]> = [];

  beforeAll(async () => {
    llm = await startOpenAiServer();
    llm.setFallback(() => ({ kind: 'hang' }));
    flex = await startEmbedded({
      config: loadConfig({
        FLEX_API_TOKENS: TOKENS.map((token) => `${token}:client`).join(','),
        FLEX_LOG_LEVEL: 'silent',
        PORT: '0',
        FLEX_LLM_BASE_URL: llm.baseUrl,
        FLEX_LLM_MODEL: 'never-answers',
        FLEX_LIMIT_REQUESTS_PER_SECOND: String(RATE),
        FLEX_LIMIT_REQUEST_BURST: String(BURST),
        FLEX_LIMIT_CONNECTIONS_PER_TOKEN: String(IN_FLIGHT),
        FLEX_LIMIT_STREAMS_PER_TOKEN: String(STREAMS),
        FLEX_LIMIT_RUNS_PER_TOKEN: String(RUNS),
      }),
      dataDir: null,
      agents: true,
    });
  }, 60_000);

  afterAll(async () => {
    for (const [client, runId] of started) await client.json('POST', `/api/v1/flex/runs/${runId}/cancel`, {});
    for (const stream of open) {
      if ('close' in stream) stream.close();
      else stream.socket.destroy();
    }
    await llm?.close();
    await flex?.close();
  });

  const get = (token: string, target = '/api/v1/flex/runs'): Promise<RawResponse> =>
    rawRequest(flex.port, { method: 'GET', target, headers: [['Authorization', `Bearer ${token}`]] });

  /** A run of `token` that stays working, followed on run.stream (one stream, one request in flight). */
  async function startRun(token: string): Promise<LiveStream & { runId: string }> {
    const client = new FlexClient(flex.url, token);
    const run = await client.start(sampleEnvelope());
    expect(run.status).toBe(200);
    open.push(run);
    started.push([client, run.runId]);
    return run;
  }

  it('refuses a token past its rate with rate_limited, serves another token, and serves it again after Retry-After', async () => {
    const begun = Date.now();
    let admitted = 0;
    let refused: RawResponse | undefined;
    while (!refused && admitted < 100) {
      const response = await get('rate-a-token');
      if (response.status === 200) admitted += 1;
      else refused = response;
    }
    const seconds = (Date.now() - begun) / 1000;
    expect(admitted).toBeGreaterThanOrEqual(BURST);
    expect(admitted).toBeLessThanOrEqual(BURST + RATE * seconds);
    const retryAfter = expectRefused(refused, 'rate_limited', RATE);
    expect((await get('rate-b-token')).status).toBe(200);
    await sleep(retryAfter * 1000);
    expect((await get('rate-a-token')).status).toBe(200);
    console.info(`rate cap: ${JSON.stringify({ rate: RATE, burst: BURST, admitted, seconds, retryAfter })}`);
  });

  it('refuses a token with FLEX_LIMIT_CONNECTIONS_PER_TOKEN requests in flight with too_many_connections', async () => {
    // Requests held in flight: admitted, their bodies never finished.
    const held: RawClient[] = [];
    for (let i = 0; i < IN_FLIGHT; i += 1) {
      const client = await openRaw(flex.port);
      client.send(
        head('POST', '/api/v1/flex/run.stream', [
          'Authorization: Bearer conn-a-token',
          'Content-Length: 100',
        ]),
      );
      client.send('{"objective"');
      held.push(client);
      open.push(client);
    }
    // Each held request has reached the guard once a further one is refused for it.
    const refused = await eventually(() => get('conn-a-token'), 'too_many_connections');
    const retryAfter = expectRefused(refused, 'too_many_connections', IN_FLIGHT);
    // A refusal costs the token nothing: a burst's worth more are refused for the slot, not the rate.
    for (let i = 0; i < BURST; i += 1)
      expectRefused(await get('conn-a-token'), 'too_many_connections', IN_FLIGHT);
    expect((await get('conn-b-token')).status).toBe(200);
    held[0].socket.destroy();
    await sleep(retryAfter * 1000);
    expect((await eventually(() => get('conn-a-token'), 200)).status).toBe(200);
  });

  it('refuses a token with FLEX_LIMIT_STREAMS_PER_TOKEN streams open with too_many_streams', async () => {
    const run = await startRun('stream-a-token');
    const client = new FlexClient(flex.url, 'stream-a-token');
    const second = await client.follow(run.runId);
    open.push(second);
    expect(second.status).toBe(200);
    const events = `/api/v1/flex/runs/${run.runId}/events`;
    const refused = await get('stream-a-token', events);
    const retryAfter = expectRefused(refused, 'too_many_streams', STREAMS);
    // A start is refused for the stream before anything is appended.
    const start = await rawRequest(flex.port, {
      method: 'POST',
      target: '/api/v1/flex/run.stream',
      headers: [
        ['Authorization', 'Bearer stream-a-token'],
        ['Content-Type', 'application/json'],
      ],
      body: Buffer.from(JSON.stringify(sampleEnvelope())),
    });
    expectRefused(start, 'too_many_streams', STREAMS);
    expect((await startRun('stream-b-token')).status).toBe(200);
    second.close();
    await second.ended;
    await sleep(retryAfter * 1000);
    // Served at once, unless the server has yet to notice the stream it left (then soon after).
    const again = await waitFor(async () => {
      const stream = await client.follow(run.runId);
      if (stream.status === 200) return stream;
      await sleep(1_000 / RATE);
    }, 10_000);
    open.push(again);
  });

  it('refuses a start past FLEX_LIMIT_RUNS_PER_TOKEN working runs with too_many_runs, and starts once one has ended', async () => {
    const first = await startRun('runs-a-token');
    const body = Buffer.from(JSON.stringify(sampleEnvelope()));
    const start = (token: string) =>
      rawRequest(flex.port, {
        method: 'POST',
        target: '/api/v1/flex/run.stream',
        headers: [
          ['Authorization', `Bearer ${token}`],
          ['Content-Type', 'application/json'],
        ],
        body,
      });
    const retryAfter = expectRefused(await start('runs-a-token'), 'too_many_runs', RUNS);
    expect((await startRun('runs-b-token')).status).toBe(200);
    const client = new FlexClient(flex.url, 'runs-a-token');
    expect((await client.json('POST', `/api/v1/flex/runs/${first.runId}/cancel`, {})).status).toBe(200);
    expect((await first.ended).at(-1)?.type).toBe('run_cancelled');
    await sleep(retryAfter * 1000);
    expect((await startRun('runs-a-token')).status).toBe(200);
  });
});

/** A 429 naming `code`, with a Retry-After in whole seconds that its body repeats; the seconds. */
function expectRefused(response: RawResponse | undefined, code: string, limit: number): number {
  expect(response?.status).toBe(429);
  const retryAfter = response?.headers['retry-after'] ?? '';
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  expect(JSON.parse(response?.body ?? '')).toEqual({
    error: {
      code,
      message: expect.any(String),
      details: { limit, retryAfterSeconds: Number(retryAfter) },
    },
  });
  return Number(retryAfter);
}

/**
 * The first answer that is `expected` (a status, or the code of a 429), asking at most twice a
 * second (the rate this spec allows) for up to 10 s; the last answer otherwise. For what the server
 * does as soon as it notices something the client did (a connection it closed, a request it sent).
 */
async function eventually(send: () => Promise<RawResponse>, expected: number | string): Promise<RawResponse> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await send();
    const matches =
      typeof expected === 'number'
        ? response.status === expected
        : response.status === 429 && JSON.parse(response.body).error.code === expected;
    if (matches || Date.now() > deadline) return response;
    await sleep(1_000 / RATE);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
