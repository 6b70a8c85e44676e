import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { EXIT } from './exit-codes';
import { recordedEvents, redecide, redecideRun } from './replay-verify';

/** Online, the events come from the server's `GET runs/:id/export` (NDJSON, a chain head last). */
describe('flex replay --verify: the run export from the server', () => {
  const text = readFileSync(join(__dirname, '../../../../test/replay-corpus/pause-resume.ndjson'), 'utf8');
  const runId = (JSON.parse(text.split('\n')[0]) as { streamId: string }).streamId.replace(/^run-/, '');
  let server: Server;
  let baseUrl: string;
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.accept} ${req.headers.authorization}`);
      if (req.url === `/api/v1/flex/runs/${runId}/export`) {
        res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
        res.end(text);
        return;
      }
      if (req.url === '/api/v1/flex/runs/run_theirs/export') {
        res.writeHead(403, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'forbidden', message: 'requires role operator' } }));
        return;
      }
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'not_found', message: `Cannot GET ${req.url}` } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const ctx = () => ({ baseUrl, token: 'op-token', out: () => {}, err: () => {} });

  it('reads the export with the token and re-decides it', async () => {
    const events = await recordedEvents(ctx(), runId);
    expect(seen).toContain(`GET /api/v1/flex/runs/${runId}/export application/x-ndjson Bearer op-token`);
    expect(redecide(events)).toMatchObject({ verified: events.length, open: false });
  });

  it('a server without the export endpoint is said plainly: not checked, never passed off as verified', async () => {
    await expect(recordedEvents(ctx(), 'run_elsewhere')).rejects.toMatchObject({
      exitCode: EXIT.error,
      message: expect.stringContaining('this server has no GET runs/run_elsewhere/export'),
    });
    expect(await redecideRun(ctx(), 'run_elsewhere')).toEqual({
      checked: false,
      code: 'no_export',
      reason: expect.stringContaining('this server has no GET runs/run_elsewhere/export'),
    });
    expect(await redecideRun(ctx(), runId)).toMatchObject({ verified: expect.any(Number), open: false });
  });

  it('a token the export refuses is said plainly: not checked, refused', async () => {
    expect(await redecideRun(ctx(), 'run_theirs')).toEqual({
      checked: false,
      code: 'forbidden',
      reason: expect.stringContaining('GET runs/run_theirs/export refused this token'),
    });
  });
});
