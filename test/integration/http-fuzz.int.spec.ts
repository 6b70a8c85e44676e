import fc from 'fast-check';
import { sql } from 'kysely';
import { loadConfig } from '@flex/runtime';
import { FlexClient, rawRequest, type RawResponse } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { sampleEnvelope } from '../sample-run';
import { BODY_LIMIT, certain, defectArb, spoil, surviving, type Defect } from './http-fuzz.defects';
import {
  endpointsOf,
  toRawRequest,
  validDraft,
  type Draft,
  type Endpoint,
  type Fixture,
} from './http-fuzz.requests';

/** Random cases per property (`FLEX_FUZZ_RUNS`); the fixed cases run on top of them. */
const RUNS = Number(process.env.FLEX_FUZZ_RUNS ?? 500);
const TOKENS: Fixture['tokens'] = {
  client: 'fuzz-client-token',
  operator: 'fuzz-operator-token',
  agent: 'fuzz-agent-token',
  admin: 'fuzz-admin-token',
};

/** The public interface (DESIGN §7) the document must cover, besides whatever else it lists. */
const PUBLIC_INTERFACE = [
  'POST /api/v1/flex/run.stream',
  'POST /api/v1/flex/run.resume',
  'POST /api/v1/flex/hitl/resolve',
  'POST /api/v1/flex/capabilities/register',
  'GET /api/v1/flex/capabilities',
  'GET /api/v1/flex/runs',
  'GET /api/v1/flex/runs/{id}',
  'GET /api/v1/flex/runs/{id}/events',
  'POST /api/v1/flex/runs/{id}/cancel',
  'GET /api/v1/flex/openapi.json',
  'GET /healthz',
  'GET /metrics',
];

/** Things a client may vary that make a request neither good nor bad by themselves. */
interface Variation {
  contentType: string | null;
  headers: Array<[string, string]>;
  query: string[];
}

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
});
const variationArb: fc.Arbitrary<Variation> = fc.record({
  contentType: fc.constantFrom(
    null,
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=utf-16',
    'application/xml',
  ),
  headers: fc.array(
    fc.tuple(
      fc.constantFrom('Idempotency-Key', 'X-Correlation-Id', 'traceparent', 'Last-Event-ID'),
      printable,
    ),
    { maxLength: 2 },
  ),
  query: fc
    .array(
      fc.tuple(fc.constantFrom('limit', 'status', 'x', 'a[b]', '__proto__'), fc.string({ maxLength: 30 })),
      { maxLength: 2 },
    )
    .map((pairs) => uniqueBy(pairs).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)),
});

/** The harshest value of every kind of defect: tried on every endpoint it applies to, every run. */
const HARSH: Defect[] = [
  { kind: 'token', authorization: null },
  { kind: 'token', authorization: 'Bearer not-a-real-token' },
  { kind: 'role', role: 'agent' },
  { kind: 'method', method: 'PUT' },
  { kind: 'path_param', value: '%ED%A0%80' },
  { kind: 'path_param', value: '%00' },
  { kind: 'duplicate_query', key: 'status' },
  { kind: 'bad_query', raw: 'status=%00' },
  { kind: 'huge_header', size: 40_000 },
  { kind: 'invalid_utf8', bytes: [0xed, 0xa0, 0x80], at: 0 },
  { kind: 'unstorable', escape: '\\u0000', at: 0 },
  { kind: 'unstorable', escape: '\\ud800', at: 1 },
  { kind: 'deep', depth: 50_000, open: '[' },
  { kind: 'deep', depth: 50_000, open: '{"a":' },
  { kind: 'too_large', size: BODY_LIMIT + 1 },
  { kind: 'truncated', keep: 0.5 },
  { kind: 'not_json_value', insert: '"__proto__":{"polluted":true},' },
  { kind: 'wrong_type', at: 0, value: 7 },
];
const PLAIN: Variation = { contentType: 'application/json', headers: [], query: [] };

interface Case {
  endpoint: Endpoint;
  defects: Defect[];
  variation: Variation;
}

describe('every bad request is a 4xx: a fuzz test over every endpoint of GET openapi.json', () => {
  let flex: EmbeddedFlex;
  let endpoints: Endpoint[];
  let fixture: Fixture;
  const tally = { cases: 0, fiveHundreds: 0, statuses: new Map<number, number>() };

  beforeAll(async () => {
    const tokens = Object.entries(TOKENS).map(([role, token]) => `${token}:${role}`);
    flex = await startEmbedded({
      config: loadConfig({
        FLEX_API_TOKENS: tokens.join(','),
        FLEX_LOG_LEVEL: 'silent',
        PORT: '0',
        // The fuzz sends hundreds of requests a second with one token: let them reach the handlers.
        FLEX_LIMIT_REQUESTS_PER_SECOND: '100000',
        FLEX_LIMIT_REQUEST_BURST: '100000',
        // The developer sandbox's routes are in the document only when it is on: fuzz them too.
        FLEX_DEV_SANDBOX: 'true',
      }),
      dataDir: null,
      agents: true,
    });
    const seeded = await new FlexClient(flex.url, TOKENS.client).runStream(sampleEnvelope());
    expect(seeded.frames.at(-1)?.type).toBe('complete');
    fixture = { tokens: TOKENS, runId: seeded.runId ?? '' };
    const document = await new FlexClient(flex.url, TOKENS.admin).json('GET', '/api/v1/flex/openapi.json');
    endpoints = endpointsOf(document.body);
  }, 90_000);

  afterAll(async () => {
    await flex?.close();
    const statuses = Object.fromEntries([...tally.statuses].sort(([a], [b]) => a - b));
    // The figures docs/security/http-fuzz.md reports, printed with every run.
    console.info(
      `http fuzz: ${JSON.stringify({ cases: tally.cases, fiveHundreds: tally.fiveHundreds, statuses })}`,
    );
  });

  const eventCount = async () =>
    (await sql<{ n: number }>`select count(*)::int as n from events`.execute(flex.runtime.database.db))
      .rows[0].n;

  async function send(endpoint: Endpoint, draft: Draft): Promise<RawResponse> {
    const response = await rawRequest(flex.port, toRawRequest(endpoint, draft));
    tally.cases += 1;
    tally.statuses.set(response.status, (tally.statuses.get(response.status) ?? 0) + 1);
    if (response.status >= 500) tally.fiveHundreds += 1;
    return response;
  }

  const draftOf = (endpoint: Endpoint, variation: Variation): Draft => {
    const valid = validDraft(endpoint, fixture);
    const headers = valid.headers.filter(([name]) => name !== 'Content-Type');
    if (variation.contentType !== null) headers.push(['Content-Type', variation.contentType]);
    return {
      ...valid,
      headers: [...headers, ...variation.headers],
      query: [...valid.query, ...variation.query],
    };
  };

  it('lists every endpoint of the public interface', () => {
    const listed = endpoints.map((e) => `${e.method} ${e.path}`);
    expect(listed).toEqual(expect.arrayContaining(PUBLIC_INTERFACE));
  });

  it('answers a request with any defect with a 4xx in the API error shape, and appends nothing', async () => {
    const caseArb: fc.Arbitrary<Case> = fc
      .record({
        endpoint: fc.constantFrom(...endpoints),
        defects: fc.array(defectArb, { minLength: 1, maxLength: 3 }),
        variation: variationArb,
      })
      .filter(({ endpoint, defects }) => surviving(defects).some((d) => certain(d, endpoint)));
    const fixed = endpoints.flatMap((endpoint) =>
      HARSH.filter((d) => certain(d, endpoint)).map((d): [Case] => [
        { endpoint, defects: [d], variation: PLAIN },
      ]),
    );
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ endpoint, defects, variation }) => {
        const before = await eventCount();
        const response = await send(endpoint, defects.reduce(spoil, draftOf(endpoint, variation)));
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(JSON.parse(response.body)).toEqual({
          error: { code: expect.any(String), message: expect.any(String), details: expect.any(Object) },
        });
        expect(await eventCount()).toBe(before);
      }),
      { numRuns: RUNS + fixed.length, examples: fixed },
    );
  }, 300_000);

  it('never answers a GET with a 5xx, whatever it carries, and a GET appends nothing', async () => {
    const gets = endpoints.filter((e) => e.method === 'GET');
    const roles = fc.constantFrom<keyof Fixture['tokens'] | null>(
      'client',
      'operator',
      'agent',
      'admin',
      null,
    );
    const body = fc.option(
      fc.oneof(
        fc.uint8Array({ maxLength: 200 }),
        fc.json().map((j) => Buffer.from(j)),
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...gets),
        variationArb,
        roles,
        body,
        async (endpoint, variation, role, raw) => {
          const draft = draftOf(endpoint, variation);
          const authorization = role === null ? null : `Bearer ${TOKENS[role]}`;
          const before = await eventCount();
          const response = await send(endpoint, { ...draft, authorization, body: raw ?? undefined });
          expect(response.status).toBeLessThan(500);
          expect(await eventCount()).toBe(before);
        },
      ),
      { numRuns: RUNS },
    );
  }, 300_000);
});

function uniqueBy(pairs: Array<[string, string]>): Array<[string, string]> {
  return [...new Map(pairs).entries()];
}
