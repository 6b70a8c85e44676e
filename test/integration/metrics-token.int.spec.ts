import { loadConfig } from '@flex/runtime';
import { FlexClient, parsePrometheusText, rawRequest, sampleSum, type RawResponse } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { sampleEnvelope } from '../sample-run';

/**
 * `GET /metrics` behind FLEX_METRICS_TOKEN, and `flex_runs_started_total` counting a start sent again with
 * the same Idempotency-Key once (issue 12, point 6), on the embedded Flex over HTTP.
 */
const CLIENT = 'metrics-client-token';
const METRICS_TOKEN = 'metrics-scrape-token-0123456789';

describe('/metrics with FLEX_METRICS_TOKEN', () => {
  let flex: EmbeddedFlex;
  let client: FlexClient;

  beforeAll(async () => {
    flex = await startEmbedded({
      config: loadConfig({
        FLEX_API_TOKENS: `${CLIENT}:client`,
        FLEX_LOG_LEVEL: 'silent',
        PORT: '0',
        FLEX_METRICS_TOKEN: METRICS_TOKEN,
      }),
      dataDir: null,
      agents: true,
    });
    client = new FlexClient(flex.url, CLIENT);
  }, 60_000);

  afterAll(async () => {
    await flex?.close();
  });

  const metrics = (authorization?: string): Promise<RawResponse> =>
    rawRequest(flex.port, {
      method: 'GET',
      target: '/metrics',
      headers: authorization === undefined ? [] : [['Authorization', authorization]],
    });

  const runsStarted = async (): Promise<number> => {
    const text = (await metrics(`Bearer ${METRICS_TOKEN}`)).body;
    return sampleSum(parsePrometheusText(text), 'flex_runs_started_total');
  };

  it.each([
    ['no Authorization header', undefined],
    ['another token', `Bearer ${METRICS_TOKEN}x`],
    ['an API token', `Bearer ${CLIENT}`],
    ['the token in another scheme', `Basic ${METRICS_TOKEN}`],
  ])('refuses a scrape with %s: 401 in the API error shape', async (_name, authorization) => {
    const response = await metrics(authorization);
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('serves the metrics to Authorization: Bearer <FLEX_METRICS_TOKEN>', async () => {
    const response = await metrics(`Bearer ${METRICS_TOKEN}`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
  });

  it('counts a start sent three times with one Idempotency-Key once in flex_runs_started_total', async () => {
    const before = await runsStarted();
    const key = { 'Idempotency-Key': 'metrics-once-1' };
    const first = await client.runStream(sampleEnvelope(), key);
    // Twice more, at once: the second and third are the first again.
    const again = await Promise.all([
      client.runStream(sampleEnvelope(), key),
      client.runStream(sampleEnvelope(), key),
    ]);
    for (const result of [first, ...again]) {
      expect(result.status).toBe(200);
      expect(result.runId).toBe(first.runId);
      expect(result.frames.at(-1)?.type).toBe('complete');
    }
    expect(await runsStarted()).toBe(before + 1);
    // A start without a key is a run of its own, and counts.
    expect((await client.runStream(sampleEnvelope())).frames.at(-1)?.type).toBe('complete');
    expect(await runsStarted()).toBe(before + 2);
  });

  it('refuses an Idempotency-Key longer than it keeps instead of starting a run without it', async () => {
    const before = await runsStarted();
    const longest = { 'Idempotency-Key': 'k'.repeat(256) };
    const kept = [await client.runStream(sampleEnvelope(), longest)];
    kept.push(await client.runStream(sampleEnvelope(), longest));
    expect(kept.map((r) => [r.status, r.runId])).toEqual([
      [200, kept[0].runId],
      [200, kept[0].runId],
    ]);
    for (let i = 0; i < 2; i += 1) {
      const refused = await client.runStream(sampleEnvelope(), { 'Idempotency-Key': 'k'.repeat(257) });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: { code: 'invalid_idempotency_key' } });
    }
    expect(await runsStarted()).toBe(before + 1);
  });
});
