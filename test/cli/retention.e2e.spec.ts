import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { loadConfig } from '@flex/runtime';
import { FlexClient } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { envelopeWithPolicies } from '../integration/embedded-run';
import { flexCli, ndjson } from './cli-harness';

const KEY = 'retention spec signing key, thirty-two characters at least';

/**
 * Retention as an operator meets it: embedded Flex (PGlite) archiving every finished run at once
 * (FLEX_RETENTION_AGE_MS=0, a cycle every 200 ms), and the real `flex` CLI (a subprocess, over HTTP)
 * reading, verifying and re-deciding the archived run from its archive, and naming an edit made to it.
 */
describe('retention: archived runs through the CLI and the API', () => {
  let flex: EmbeddedFlex;
  const archiveDir = mkdtempSync(join(tmpdir(), 'flex-retention-'));
  const env = (token = 'ret-operator') => ({
    FLEX_URL: flex.url,
    FLEX_TOKEN: token,
    FLEX_CHAIN_SIGNING_KEY: KEY,
  });
  const cli = (...args: string[]) => flexCli(env(), ...args);
  let operator: FlexClient;

  beforeAll(async () => {
    const config = loadConfig({
      FLEX_API_TOKENS: 'ret-operator:operator,ret-client:client,ret-admin:admin',
      FLEX_LOG_LEVEL: 'silent',
      PORT: '0',
      FLEX_CHAIN_SIGNING_KEY: KEY,
      FLEX_RETENTION_AGE_MS: '0',
      FLEX_RETENTION_INTERVAL_MS: '200',
      FLEX_ARCHIVE_DIR: archiveDir,
    });
    flex = await startEmbedded({ config, dataDir: null, agents: true });
    operator = new FlexClient(flex.url, 'ret-operator');
  }, 90_000);
  afterAll(() => flex?.close());

  /** A completed run, once retention has archived it (polled, within a generous bound). */
  async function archivedRun(
    headers: Record<string, string> = {},
  ): Promise<{ runId: string; frames: Array<{ id: string; type: string }> }> {
    const { runId, frames } = await operator.runStream(envelopeWithPolicies([]), headers);
    expect(frames[frames.length - 1]?.type).toBe('complete');
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { body } = await operator.json('GET', `/api/v1/flex/runs/${runId}`);
      if (body.run?.archive) break;
      if (Date.now() > deadline) throw new Error(`run ${runId} was not archived within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { runId: runId as string, frames };
  }

  it('keeps a summary, and verifies, exports, replays and re-decides the run from its archive', async () => {
    const { runId, frames } = await archivedRun();
    const location = join(archiveDir, `run-${runId}.ndjson.gz`);
    const { body: detail } = await operator.json('GET', `/api/v1/flex/runs/${runId}`);
    expect(detail.run).toMatchObject({
      status: 'completed',
      archive: { location, head: { streamId: `run-${runId}` } },
    });
    expect(detail.output?.output).toBeDefined();
    expect(detail.planVersions).toEqual([]);

    const verify = await cli('verify', runId, '--json');
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({
      ok: true,
      archive: { location },
      head: detail.run.archive.head,
    });

    const file = join(archiveDir, 'export.ndjson');
    expect((await cli('export', runId, '--out', file)).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(gunzipSync(readFileSync(location)).toString('utf8'));
    const offline = await flexCli({ FLEX_CHAIN_SIGNING_KEY: KEY }, 'verify-export', file, '--json');
    expect(JSON.parse(offline.stdout)).toMatchObject({ ok: true, signature: 'valid' });

    const events = await cli('events', runId, '--json');
    expect(ndjson(events.stdout).map((f) => f.id)).toEqual(frames.map((f) => f.id));
    const replay = await cli('replay', runId, '--verify');
    expect(replay.stderr).toMatch(/^verify: ok/m);
    expect(replay.stderr).toMatch(/^re-decided: ok \((\d+) of \1 events\)$/m);
    expect(replay.code).toBe(0);

    const at = await operator.json('GET', `/api/v1/flex/runs/${runId}?at=1`);
    expect(at).toMatchObject({
      status: 410,
      body: { error: { code: 'run_archived', details: { location } } },
    });
    const client = new FlexClient(flex.url, 'ret-client');
    expect((await client.json('GET', `/api/v1/flex/runs/${runId}/verify`)).status).toBe(404);
  }, 120_000);

  it('answers a start sent again with the same Idempotency-Key with the archived run, starting nothing', async () => {
    const key = { 'Idempotency-Key': `retention-again-${Date.now()}` };
    const { runId, frames } = await archivedRun(key);
    const listed = async () => (await operator.json('GET', '/api/v1/flex/runs?limit=200')).body.runs.length;
    const before = await listed();
    const again = await operator.runStream(envelopeWithPolicies([]), key);
    expect(again).toMatchObject({ status: 200, runId });
    expect(again.frames.map((f) => f.id)).toEqual(frames.map((f) => f.id));
    expect(await listed()).toBe(before);
  }, 120_000);

  it('names an event edited in the archive, checked against the head kept in the database', async () => {
    const { runId } = await archivedRun();
    const location = join(archiveDir, `run-${runId}.ndjson.gz`);
    const lines = gunzipSync(readFileSync(location)).toString('utf8').trim().split('\n');
    const event = JSON.parse(lines[1]);
    lines[1] = JSON.stringify({ ...event, payload: { ...event.payload, forged: true } });
    writeFileSync(location, gzipSync(`${lines.join('\n')}\n`));
    const verify = await cli('verify', runId, '--json');
    expect(verify.code).toBe(9);
    expect(JSON.parse(verify.stdout)).toMatchObject({
      ok: false,
      firstBad: { version: 2, eventId: event.id, problem: 'edited' },
    });
    writeFileSync(location, 'not gzip');
    const unreadable = await cli('verify', runId, '--json');
    expect(unreadable.code).toBe(9);
    expect(JSON.parse(unreadable.stdout).firstBad.detail).toContain('is not a readable export');
  }, 120_000);

  it('puts archived runs back in the read models when they are rebuilt', async () => {
    const { runId } = await archivedRun();
    const admin = new FlexClient(flex.url, 'ret-admin');
    expect((await admin.json('POST', '/api/v1/flex/admin/projections/rebuild')).status).toBe(201);
    const { status, body } = await operator.json('GET', `/api/v1/flex/runs/${runId}`);
    expect(status).toBe(200);
    expect(body.run).toMatchObject({ status: 'completed', archive: { events: expect.any(Number) } });
    expect(body.output?.output).toBeDefined();
    expect(readdirSync(archiveDir)).toContain(`run-${runId}.ndjson.gz`);
  }, 120_000);
});
