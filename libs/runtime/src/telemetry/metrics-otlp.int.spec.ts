import { createServer, type Server } from 'node:http';
import { waitFor } from '@flex/testing';
import { FlexMetrics } from './metrics';

interface Received {
  path: string;
  contentType: string;
  body: string;
}

/** OTLP/HTTP export to a real HTTP receiver this test runs, as `OTEL_EXPORTER_OTLP_ENDPOINT` sets it up. */
describe('OTLP metrics export', () => {
  let server: Server;
  let url: string;
  const received: Received[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        received.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/metrics`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('posts the families, with the service name, every interval and once more at shutdown', async () => {
    const metrics = new FlexMetrics({ service: 'executor', otlp: { url, intervalMs: 200 } });
    metrics.count({ family: 'runsFailed', labels: { reason: 'plan_rejected' } });
    metrics.observe({ family: 'nodeDuration', labels: { capability: 'writer.en', outcome: 'ok' } }, 0.25);
    const sent = await waitFor(
      async () => received.find((r) => r.body.includes('flex_runs_failed')),
      10_000,
      () => `received: ${received.map((r) => r.path).join(', ')}`,
    );
    expect(sent.path).toBe('/v1/metrics');
    for (const text of [
      'flex_node_duration_seconds',
      'flex_runs_started',
      'flex-executor',
      'plan_rejected',
      'writer.en',
    ])
      expect(sent.body).toContain(text);
    const before = received.length;
    await metrics.shutdown();
    expect(received.length).toBeGreaterThan(before);
  });
});
