import type { INestApplication } from '@nestjs/common';
import { sql } from 'kysely';
import { createGatewayApp, resolveApiTokens } from '@flex/gateway';
import { readModelMigrations } from '@flex/read-models';
import { createEmbeddedRuntime, loadConfig, type ServiceRuntime } from '@flex/runtime';
import { FlexClient, waitFor } from '@flex/testing';
import { sampleEnvelope } from '../sample-run';
import { OpenApiCheck } from './openapi-check';

/**
 * Alive is not ready: while a startup step is pending (here the agents a system ships), /healthz
 * answers 200, /readyz 503 with what it waits for, and a run is refused (503 not_ready, Retry-After)
 * before anything is appended; once the step is done, /readyz is 200 and runs start.
 */
describe('GET /readyz and a start before Flex is ready (a gateway over HTTP)', () => {
  let runtime: ServiceRuntime;
  let app: INestApplication;
  let url: string;
  let client: FlexClient;
  let check: OpenApiCheck;

  beforeAll(async () => {
    const config = loadConfig({ FLEX_API_TOKENS: 'ready-client:client', FLEX_LOG_LEVEL: 'silent' });
    runtime = await createEmbeddedRuntime(config, {
      service: 'flex',
      migrations: readModelMigrations,
      dataDir: null,
    });
    runtime.readiness.pending('agents', 'waiting for Writer.en to register');
    app = await createGatewayApp(runtime, resolveApiTokens(config.FLEX_API_TOKENS, config.FLEX_DATA_DIR));
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
    client = new FlexClient(url, 'ready-client');
    check = new OpenApiCheck((await client.json('GET', '/api/v1/flex/openapi.json')).body);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await runtime?.close();
  });

  const events = async () =>
    (await sql<{ n: number }>`select count(*)::int as n from events`.execute(runtime.database.db)).rows[0].n;

  it('while a step is pending: alive, not ready (saying what it waits for), and a start is refused, changing nothing', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const ready = await waitFor(async () => {
      const res = await fetch(`${url}/readyz`);
      const body = (await res.json()) as { checks: Record<string, { ok: boolean }> };
      return body.checks.projections?.ok && { status: res.status, body };
    }, 10_000);
    expect(ready).toEqual({
      status: 503,
      body: {
        status: 'starting',
        service: 'flex',
        mode: 'embedded',
        checks: {
          agents: { ok: false, detail: 'waiting for Writer.en to register' },
          database: { ok: true },
          migrations: { ok: true, detail: 'up to date' },
          projections: { ok: true, detail: expect.stringMatching(/^caught up/) },
        },
      },
    });
    expect(check.errors('GET', '/readyz', 503, ready.body)).toEqual([]);
    const before = await events();
    const res = await fetch(`${url}/api/v1/flex/run.stream`, {
      method: 'POST',
      headers: client.headers(),
      body: JSON.stringify(sampleEnvelope()),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    const body = await res.json();
    expect(body).toMatchObject({ error: { code: 'not_ready', message: expect.stringMatching(/readyz/) } });
    expect(check.errors('POST', '/api/v1/flex/run.stream', 503, body)).toEqual([]);
    expect(await events()).toBe(before);
  });

  it('once every step is done: ready, and a run starts', async () => {
    runtime.readiness.done('agents', '1 registered');
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { agents: { ok: true } } });
    const run = await client.start(sampleEnvelope());
    expect(run.status).toBe(200);
    expect(run.runId).toMatch(/^run_/);
    run.close();
  });
});
