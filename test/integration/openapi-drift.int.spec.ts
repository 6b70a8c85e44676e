import type { INestApplication } from '@nestjs/common';
import { contentHash, FlexEventFrameSchema } from '@flex/contracts';
import { createGatewayApp, resolveApiTokens } from '@flex/gateway';
import { createEmbeddedRuntime, loadConfig, type ServiceRuntime } from '@flex/runtime';
import { readModelMigrations } from '@flex/read-models';
import { FlexClient } from '@flex/testing';
import { OpenApiCheck } from './openapi-check';

const TOKENS = 'drift-admin:admin,drift-client:client';

interface ExpressLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** What express will really route: every (method, path) Nest registered on the app's router. */
function servedRoutes(app: INestApplication): string[] {
  const express = app.getHttpAdapter().getInstance() as { router: { stack: ExpressLayer[] } };
  return express.router.stack.flatMap((layer) =>
    layer.route
      ? Object.keys(layer.route.methods)
          .filter((m) => layer.route?.methods[m])
          .map((m) => `${m.toUpperCase()} ${layer.route?.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`)
      : [],
  );
}

const documented = (document: Record<string, unknown>) =>
  Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
    Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
  );

/**
 * The OpenAPI document cannot drift from the routes: every route Nest registers is in
 * `GET openapi.json` and every operation there is a route Nest serves, and the document is valid
 * OpenAPI 3.1 whose schemas (generated from the zod contracts) compile as JSON Schema 2020-12.
 */
describe('GET /api/v1/flex/openapi.json: the routes as they are, their schemas from the contracts', () => {
  let runtime: ServiceRuntime;
  let app: INestApplication;
  let document: Record<string, unknown>;

  beforeAll(async () => {
    const config = loadConfig({ FLEX_API_TOKENS: TOKENS, FLEX_LOG_LEVEL: 'silent', PORT: '0' });
    runtime = await createEmbeddedRuntime(config, {
      service: 'flex',
      migrations: readModelMigrations,
      dataDir: null,
    });
    app = await createGatewayApp(runtime, resolveApiTokens(config.FLEX_API_TOKENS, config.FLEX_DATA_DIR));
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    const res = await new FlexClient(`http://127.0.0.1:${port}`, 'drift-admin').json(
      'GET',
      '/api/v1/flex/openapi.json',
    );
    expect(res.status).toBe(200);
    document = res.body;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await runtime?.close();
  });

  it('lists every route Nest serves, and serves every route it lists', () => {
    const served = servedRoutes(app).sort();
    expect(served.length).toBeGreaterThan(10);
    expect(documented(document).sort()).toEqual(served);
  });

  it('is OpenAPI 3.1: schemas compile as JSON Schema 2020-12, every $ref resolves, ids are unique', () => {
    expect(document).toMatchObject({ openapi: '3.1.0', info: { title: 'Flex' } });
    new OpenApiCheck(document).assertSchemasCompile();
    const ids = Object.values(
      document.paths as Record<string, Record<string, { operationId: string }>>,
    ).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('documents the public interface with the schemas of the contracts', () => {
    const op = (method: string, path: string) =>
      (document.paths as Record<string, Record<string, Record<string, any>>>)[path]?.[method];
    expect(op('post', '/api/v1/flex/run.stream').requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/TaskEnvelopeInput',
    });
    expect(op('get', '/api/v1/flex/runs/{id}').responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RunsDetail',
    });
    expect(op('get', '/api/v1/flex/runs').parameters.map((p: { name: string }) => p.name)).toEqual([
      'limit',
      'status',
      'capability',
      'since',
      'until',
      'cursor',
    ]);
    expect(op('get', '/readyz').responses).toMatchObject({ '200': {}, '503': {} });
    expect(op('get', '/healthz').security).toEqual([]);
    expect(op('post', '/api/v1/flex/capabilities/register').responses).toHaveProperty('201');
    expect(op('post', '/api/v1/flex/runs/{id}/cancel').responses).toHaveProperty('200');
    expect(op('post', '/api/v1/flex/runs/{id}/pause').responses).toMatchObject({ '200': {}, '409': {} });
    const eventsParams = op('get', '/api/v1/flex/runs/{id}/events').parameters;
    expect(eventsParams.find((p: { name: string }) => p.name === 'follow')).toMatchObject({
      in: 'query',
      required: false,
      schema: { enum: ['true', 'false'] },
    });
    const frame = op('get', '/api/v1/flex/runs/{id}/events').responses['200'].content['text/event-stream'];
    expect(frame['x-flex-event-data']).toEqual({ $ref: '#/components/schemas/FlexEventFrame' });
  });

  it('describes the frames the streams carry: a frame the contracts accept matches the FlexEventFrame component', () => {
    const check = new OpenApiCheck(document);
    const frame = {
      type: 'policy_triggered',
      id: 'e1',
      timestamp: '2026-01-01T00:00:00.000Z',
      runId: 'run_1',
      correlationId: 'c1',
      payload: {
        policyId: 'review',
        trigger: { kind: 'onStart' },
        actionDetails: { type: 'hitl', rationale: 'look first', approveAction: { type: 'replan' } },
        decision: { result: 'DENY', reason: 'policy review requires approval', severity: 'hard' },
      },
    };
    expect(FlexEventFrameSchema.safeParse(frame).success).toBe(true);
    expect(check.componentErrors('FlexEventFrame', frame)).toEqual([]);
    const old = { ...frame, payload: { ...frame.payload, action: frame.payload.actionDetails } };
    expect(check.componentErrors('FlexEventFrame', old)).not.toEqual([]);
    expect(contentHash({})).toMatch(/^[0-9a-f]{64}$/);
  });
});
