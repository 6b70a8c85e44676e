import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { archiveRun } from './archive-run';
import { findArchive, readArchivedChain } from './archive-read';
import { S3ArchiveStore, type S3ArchiveOptions } from './archive-s3';
import { verifyChain } from './chain-verify';
import { EventStore } from './event-store';
import { sha256Hex, signV4 } from './sigv4';
import { newEvent, pgliteBackend, type TestStore } from './store.spec-helper';

const CREDENTIALS = { accessKeyId: 'flex-test', secretAccessKey: 'flex-test-secret', region: 'eu-west-3' };

/**
 * A stand-in for S3 (no S3-compatible server runs here without Docker): a real HTTP server that
 * keeps objects by path and, like S3, refuses a request whose SigV4 signature does not hold over the
 * request as it arrived (method, path, the signed headers' received values) or whose body does not
 * hash to its x-amz-content-sha256. It checks the client's wire format, not the signer's algorithm
 * (sigv4.unit.spec.ts checks that against AWS's published examples).
 */
async function startS3StandIn(): Promise<{ server: Server; endpoint: string; objects: Map<string, Buffer> }> {
  const objects = new Map<string, Buffer>();
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const refusal = checkSignature(req, body);
    if (refusal) return void res.writeHead(403).end(`<Error><Code>${refusal}</Code></Error>`);
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (req.method === 'PUT') objects.set(path, body);
    else if (!objects.has(path)) return void res.writeHead(404).end('<Error><Code>NoSuchKey</Code></Error>');
    res.writeHead(200).end(req.method === 'GET' ? objects.get(path) : undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, objects };
}

function checkSignature(req: IncomingMessage, body: Buffer): string | undefined {
  const auth = /Credential=([^/]+)\/[^,]+, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})/.exec(
    req.headers.authorization ?? '',
  );
  if (!auth || auth[1] !== CREDENTIALS.accessKeyId) return 'InvalidAccessKeyId';
  const payloadHash = String(req.headers['x-amz-content-sha256']);
  if (payloadHash !== sha256Hex(body)) return 'XAmzContentSHA256Mismatch';
  const signed = auth[2].split(';').filter((h) => h !== 'host' && h !== 'x-amz-date');
  const headers = Object.fromEntries(signed.map((h) => [h, String(req.headers[h])]));
  const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
  const expected = signV4(
    { method: req.method ?? '', url, headers, payloadHash },
    { ...CREDENTIALS, service: 's3' },
    String(req.headers['x-amz-date']),
  );
  return expected.authorization === req.headers.authorization ? undefined : 'SignatureDoesNotMatch';
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('archives in an S3-compatible bucket (SigV4 over HTTP)', () => {
  let s3: Awaited<ReturnType<typeof startS3StandIn>>;
  let options: S3ArchiveOptions;
  let t: TestStore;

  beforeAll(async () => {
    s3 = await startS3StandIn();
    options = { endpoint: s3.endpoint, bucket: 'flex-archive', prefix: 'runs/', ...CREDENTIALS };
    t = await pgliteBackend.open('s3');
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => s3.server.close(resolve));
  });

  it('puts an object path-style under the prefix and gets it back by its s3:// location', async () => {
    const store = new S3ArchiveStore(options);
    const bytes = Buffer.from(`archive ${randomUUID()} with a name to encode`);
    const location = await store.put('run-a b+c.ndjson.gz', bytes);
    expect(location).toBe('s3://flex-archive/runs/run-a b+c.ndjson.gz');
    expect(s3.objects.get('/flex-archive/runs/run-a b+c.ndjson.gz')).toEqual(bytes);
    expect(await store.get(location)).toEqual(bytes);
  });

  it('reports a refused signature, a missing object and a foreign bucket by location, as unavailable', async () => {
    const wrong = new S3ArchiveStore({ ...options, secretAccessKey: 'not the secret' });
    await expect(wrong.put('x.ndjson.gz', Buffer.from('x'))).rejects.toMatchObject({
      code: 'ARCHIVE_UNAVAILABLE',
      message: expect.stringContaining('PUT answered 403: <Error><Code>SignatureDoesNotMatch'),
    });
    const store = new S3ArchiveStore(options);
    await expect(store.get('s3://flex-archive/runs/none.ndjson.gz')).rejects.toMatchObject({
      code: 'ARCHIVE_UNAVAILABLE',
      message: expect.stringContaining('GET answered 404'),
    });
    await expect(store.get('s3://another/runs/x')).rejects.toThrow(
      /not in the configured bucket flex-archive/,
    );
  });

  it('archives a run there, verified, and reads it back against the kept head', async () => {
    const events = new EventStore(t.database.db);
    const streamId = `run-${randomUUID()}`;
    await events.append(streamId, [newEvent('start'), newEvent('complete')], {
      expectedVersion: 'no_stream',
    });
    const before = await events.readChain(streamId);
    const archives = new S3ArchiveStore(options);
    const outcome = await archiveRun(t.database.db, streamId, { archives });
    expect(outcome).toMatchObject({
      status: 'archived',
      location: `s3://flex-archive/runs/${streamId}.ndjson.gz`,
    });
    const record = (await findArchive(t.database.db, streamId))!;
    const archived = await readArchivedChain(archives, record);
    expect(archived).toEqual(before);
    expect(verifyChain(archived, record.head).ok).toBe(true);
    expect(await events.readChain(streamId)).toEqual([]);
  });
});
