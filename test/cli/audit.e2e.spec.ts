import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { FlexClient, type TestDatabase } from '@flex/testing';
import type { EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { envelopeWithPolicies } from '../integration/embedded-run';
import { flexCli, startPostgresFlex } from './cli-harness';

const KEY = 'audit spec signing key, thirty-two characters at least';
const TOKENS = 'audit-operator:operator,audit-client:client';

/**
 * Tamper evidence as an auditor meets it: runs on a real Postgres (through embedded Flex with
 * FLEX_DATABASE_URL and NATS), rows edited, deleted, inserted and reordered directly in Postgres as
 * someone with the database password would, and the real `flex` CLI (a subprocess, over HTTP)
 * naming the first bad event.
 */
describe('flex export / verify / verify-export against a tampered Postgres', () => {
  let db: TestDatabase;
  let flex: EmbeddedFlex;
  let pg: Client;
  const dir = mkdtempSync(join(tmpdir(), 'flex-audit-'));
  const env = (token = 'audit-operator') => ({
    FLEX_URL: flex.url,
    FLEX_TOKEN: token,
    FLEX_CHAIN_SIGNING_KEY: KEY,
  });
  const cli = (...args: string[]) => flexCli(env(), ...args);

  beforeAll(async () => {
    ({ db, flex, pg } = await startPostgresFlex('audit_chain', {
      FLEX_API_TOKENS: TOKENS,
      FLEX_CHAIN_SIGNING_KEY: KEY,
    }));
    // What an attacker with the database's superuser does: triggers (append-only) off, this session only.
    await pg.query(`set session_replication_role = replica`);
  }, 90_000);
  afterAll(async () => {
    await pg?.end();
    await flex?.close();
    await db?.drop();
  });

  /** A completed run of the sample envelope, and its stored rows in version order. */
  async function completedRun(): Promise<{ runId: string; rows: Array<Record<string, any>> }> {
    const operator = new FlexClient(flex.url, 'audit-operator');
    const { runId, frames } = await operator.runStream(envelopeWithPolicies([]));
    expect(frames[frames.length - 1]?.type).toBe('complete');
    const { rows } = await pg.query(
      `select position::int, id::text, version, prev_hash, hash from events
       where stream_id = $1 order by version`,
      [`run-${runId}`],
    );
    return { runId: runId as string, rows };
  }

  async function verified(runId: string, ...more: string[]) {
    const result = await cli('verify', runId, '--json', ...more);
    return { code: result.code, verdict: JSON.parse(result.stdout), stderr: result.stderr };
  }

  it('an untouched run verifies; its export verifies offline, signature included', async () => {
    const { runId, rows } = await completedRun();
    const intact = await cli('verify', runId);
    expect(intact).toMatchObject({ code: 0, stderr: '' });
    expect(intact.stdout).toContain(`${runId}: chain intact, ${rows.length} events`);

    const file = join(dir, `${runId}.ndjson`);
    expect((await cli('export', runId, '--out', file)).code).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(rows.length + 1);
    expect(JSON.parse(lines[lines.length - 1]).head).toMatchObject({
      streamId: `run-${runId}`,
      version: rows.length,
      hash: rows[rows.length - 1].hash,
      signature: { alg: 'HMAC-SHA256' },
    });
    const offline = await flexCli({ FLEX_CHAIN_SIGNING_KEY: KEY }, 'verify-export', file, '--json');
    expect(offline.code).toBe(0);
    expect(JSON.parse(offline.stdout)).toMatchObject({ ok: true, events: rows.length, signature: 'valid' });
    const wrongKey = await flexCli({ FLEX_CHAIN_SIGNING_KEY: `${KEY}?` }, 'verify-export', file);
    expect(wrongKey.code).toBe(9);
    expect(wrongKey.stdout).toContain('head signature invalid');

    // A tampered copy of the file: the edited event is named, offline.
    const edited = [...lines];
    const event = JSON.parse(lines[2]);
    edited[2] = JSON.stringify({ ...event, payload: { ...event.payload, forged: true } });
    writeFileSync(join(dir, 'edited.ndjson'), `${edited.join('\n')}\n`);
    const tampered = await flexCli({}, 'verify-export', join(dir, 'edited.ndjson'), '--json');
    expect(tampered.code).toBe(9);
    expect(JSON.parse(tampered.stdout).firstBad).toMatchObject({
      version: 3,
      eventId: event.id,
      problem: 'edited',
    });
  }, 90_000);

  it('names an event edited in Postgres', async () => {
    const { runId, rows } = await completedRun();
    await pg.query(`update events set payload = jsonb_set(payload, '{forged}', 'true') where id = $1`, [
      rows[3].id,
    ]);
    const { code, verdict } = await verified(runId);
    expect(code).toBe(9);
    expect(verdict).toMatchObject({
      ok: false,
      firstBad: { version: 4, eventId: rows[3].id, problem: 'edited' },
    });
    const human = await cli('verify', runId);
    expect(human.stdout).toContain(`TAMPERED: edited: event ${rows[3].id} at position ${rows[3].position}`);
  }, 90_000);

  it('names the event after one deleted in Postgres', async () => {
    const { runId, rows } = await completedRun();
    await pg.query(`delete from events where id = $1`, [rows[2].id]);
    const { code, verdict } = await verified(runId);
    expect(code).toBe(9);
    expect(verdict.firstBad).toMatchObject({ version: 4, eventId: rows[3].id, problem: 'deleted' });
  }, 90_000);

  it('names an event inserted in Postgres, in the middle or at the end', async () => {
    const { runId, rows } = await completedRun();
    const stream = `run-${runId}`;
    // Make room at version 3 (two steps: the unique (stream, version) holds at every row), then forge.
    await pg.query(`update events set version = version + 1000 where stream_id = $1 and version >= 3`, [
      stream,
    ]);
    await pg.query(`update events set version = version - 999 where stream_id = $1 and version > 1000`, [
      stream,
    ]);
    const forged = randomUUID();
    await pg.query(
      `insert into events (id, stream_id, version, type, payload, metadata, prev_hash, hash)
       values ($1, $2, 3, 'log', '{"level":"info","message":"all fine"}', '{"correlationId":"x"}', $3, $4)`,
      [forged, stream, rows[1].hash, 'f'.repeat(64)],
    );
    expect((await verified(runId)).verdict.firstBad).toMatchObject({
      version: 3,
      eventId: forged,
      problem: 'inserted',
    });

    const other = await completedRun();
    const appended = randomUUID();
    await pg.query(
      `insert into events (id, stream_id, version, type, payload, metadata)
       values ($1, $2, $3, 'complete', '{"output":{}}', '{"correlationId":"x"}')`,
      [appended, `run-${other.runId}`, other.rows.length + 1],
    );
    const { code, verdict } = await verified(other.runId);
    expect(code).toBe(9);
    expect(verdict.firstBad).toMatchObject({ eventId: appended, problem: 'inserted' });
  }, 120_000);

  it('names the first of two events reordered in Postgres', async () => {
    const { runId, rows } = await completedRun();
    const swap = (from: number, to: number) =>
      pg.query(`update events set version = $2 where stream_id = $3 and version = $1`, [
        from,
        to,
        `run-${runId}`,
      ]);
    await swap(4, 1000);
    await swap(5, 4);
    await swap(1000, 5);
    const { verdict } = await verified(runId);
    expect(verdict.firstBad).toMatchObject({ version: 4, eventId: rows[4].id, problem: 'reordered' });
  }, 90_000);

  it('finds events cut from the end only against an earlier export', async () => {
    const { runId, rows } = await completedRun();
    const file = join(dir, `${runId}-before.ndjson`);
    expect((await cli('export', runId, '--out', file)).code).toBe(0);
    await pg.query(`delete from events where id = $1`, [rows[rows.length - 1].id]);
    expect((await verified(runId)).code).toBe(0);
    const { code, verdict } = await verified(runId, '--against', file);
    expect(code).toBe(9);
    expect(verdict.firstBad).toMatchObject({ version: rows.length, eventId: null, problem: 'deleted' });

    // A head edited to match the cut chain gives itself away by its signature.
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const { head } = JSON.parse(lines[lines.length - 1]);
    const forgedHead = { ...head, version: rows.length - 1, hash: rows[rows.length - 2].hash };
    const forged = join(dir, `${runId}-forged.ndjson`);
    writeFileSync(forged, `${[...lines.slice(0, -2), JSON.stringify({ head: forgedHead })].join('\n')}\n`);
    const refused = await cli('verify', runId, '--against', forged);
    expect(refused.code).toBe(9);
    expect(refused.stderr).toContain('its head signature is invalid');
  }, 90_000);

  it("a client verifies and exports its own runs, not another's (404, exit 1); a bad query names its parameter", async () => {
    const { runId } = await completedRun();
    const asClient = await flexCli(env('audit-client'), 'verify', runId);
    expect(asClient.code).toBe(1);
    const client = new FlexClient(flex.url, 'audit-client');
    expect((await client.json('GET', `/api/v1/flex/runs/${runId}/export`)).status).toBe(404);
    const own = await client.runStream(envelopeWithPolicies([]));
    expect(own.frames[own.frames.length - 1]?.type).toBe('complete');
    const ownVerify = await flexCli(env('audit-client'), 'verify', own.runId!);
    expect({ code: ownVerify.code, stderr: ownVerify.stderr }).toEqual({
      code: 0,
      stderr: expect.any(String),
    });
    const operator = new FlexClient(flex.url, 'audit-operator');
    const bad = await operator.json('GET', `/api/v1/flex/runs/${runId}/verify?version=3`);
    expect(bad).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_query', details: { path: 'hash' } } },
    });
    expect((await cli('verify', 'run_nope')).code).toBe(1);
  }, 90_000);

  it('GET runs/:id?at= shows the run as of an event; a bad or too early position is refused', async () => {
    const operator = new FlexClient(flex.url, 'audit-operator');
    const { runId, rows } = await completedRun();
    const frames = await operator.events(runId);
    const planned = frames.find((f) => f.type === 'plan_generated')!;
    const then = await operator.json('GET', `/api/v1/flex/runs/${runId}?at=${planned.position}`);
    expect(then.status).toBe(200);
    expect(then.body.run).toMatchObject({ status: 'running', lastPosition: planned.position });
    expect(then.body.output).toBeNull();
    const now = await operator.json(
      'GET',
      `/api/v1/flex/runs/${runId}?at=${rows[rows.length - 1].position + 100}`,
    );
    expect(now.body.run.status).toBe('completed');
    const bad = await operator.json('GET', `/api/v1/flex/runs/${runId}?at=soon`);
    expect(bad).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_query', details: { path: 'at' } } },
    });
    const early = await operator.json('GET', `/api/v1/flex/runs/${runId}?at=${rows[0].position - 1}`);
    expect(early).toMatchObject({ status: 404, body: { error: { code: 'run_not_found' } } });
  }, 90_000);
});
