import { trace } from '@opentelemetry/api';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadTracingConfig } from '../config';
import { startTracing } from './tracing';

/** A real OTLP/HTTP receiver: what each POST was (path, content type, size). */
async function receiver() {
  const posts: Array<{ path?: string; type?: string; bytes: number }> = [];
  const server = http.createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      posts.push({ path: req.url, type: req.headers['content-type'], bytes });
      res.writeHead(200, { 'content-type': String(req.headers['content-type']) }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, posts, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('OTLP/HTTP export, as OTEL_EXPORTER_OTLP_PROTOCOL says', () => {
  it.each([
    [undefined, 'application/json'],
    ['http/json', 'application/json'],
    ['http/protobuf', 'application/x-protobuf'],
  ])('protocol %s posts %s to <endpoint>/v1/traces', async (protocol, contentType) => {
    const r = await receiver();
    try {
      const env: Record<string, string> = { OTEL_EXPORTER_OTLP_ENDPOINT: r.url };
      if (protocol) env.OTEL_EXPORTER_OTLP_PROTOCOL = protocol;
      const tracing = startTracing(loadTracingConfig(env), 'gateway');
      trace.getTracer('test').startSpan('run.stream').end();
      await tracing.shutdown();
      expect(r.posts).toEqual([{ path: '/v1/traces', type: contentType, bytes: expect.any(Number) }]);
      expect(r.posts[0].bytes).toBeGreaterThan(0);
    } finally {
      await r.close();
    }
  });
});
