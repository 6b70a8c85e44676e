import { createServer, type IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { TraceSpan } from './trace-spans';

/** A real OTLP/HTTP trace receiver (JSON protocol), as Jaeger or a collector would run on :4318. */
export interface OtlpReceiver {
  /** The base endpoint, for OTEL_EXPORTER_OTLP_ENDPOINT (spans are POSTed to `/v1/traces`). */
  url: string;
  /** Every request body received, as sent (decompressed). */
  bodies: string[];
  spans(): TraceSpan[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: OtlpAttribute[];
}
interface OtlpRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    readBody(req).then(
      (body) => {
        bodies.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      },
      () => res.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    spans: () => bodies.flatMap((b) => spansOf(JSON.parse(b) as OtlpRequest)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
}

function spansOf(request: OtlpRequest): TraceSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) => {
    const service = String(attributesOf(rs.resource?.attributes)['service.name']);
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        name: s.name,
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ? s.parentSpanId : undefined,
        service,
        attributes: attributesOf(s.attributes),
      })),
    );
  });
}

function attributesOf(attributes: OtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(
    attributes.map(({ key, value }) => [
      key,
      value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue,
    ]),
  );
}
