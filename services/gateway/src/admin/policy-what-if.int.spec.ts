import type { INestApplication } from '@nestjs/common';
import { readModelMigrations } from '@flex/read-models';
import { createEmbeddedRuntime, loadConfig, type ServiceRuntime } from '@flex/runtime';
import { FlexClient } from '@flex/testing';
import { parseApiTokens } from '../auth/api-tokens';
import { createGatewayApp } from '../http/gateway.app';

/**
 * A gateway process without decide functions (the distributed `services/gateway`): policy what-if
 * says so (501, pointing at the CLI) once the request is known to be an operator's and well formed.
 */
describe('POST admin/policy-what-if on a gateway without decide functions', () => {
  let runtime: ServiceRuntime;
  let app: INestApplication;
  let url: string;
  const post = (token: string, body: unknown) =>
    new FlexClient(url, token).json('POST', '/api/v1/flex/admin/policy-what-if', body);
  const policies = { runtime: [{ id: 'review', trigger: { kind: 'onStart' }, action: { type: 'hitl' } }] };

  beforeAll(async () => {
    const config = loadConfig({ FLEX_LOG_LEVEL: 'silent', PORT: '0' });
    runtime = await createEmbeddedRuntime(config, {
      service: 'gateway',
      migrations: readModelMigrations,
      dataDir: null,
    });
    app = await createGatewayApp(runtime, parseApiTokens('lone-operator:operator,lone-client-token:client'));
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await runtime?.close();
  });

  it('answers 501 what_if_unavailable to an operator; 403 to a client; 400 to a bad set first', async () => {
    const unavailable = await post('lone-operator', { policies });
    expect(unavailable.status).toBe(501);
    expect(unavailable.body.error).toMatchObject({ code: 'what_if_unavailable' });
    expect(unavailable.body.error.message).toContain('flex policy what-if');
    expect((await post('lone-client-token', { policies })).status).toBe(403);
    const bad = await post('lone-operator', { policies: { runtime: [{ id: 'x' }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(
      expect.arrayContaining(['policies.runtime[0].trigger', 'policies.runtime[0].action']),
    );
  });
});
