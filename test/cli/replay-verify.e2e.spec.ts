import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flexCli, HITL, runIdOf, startCliFlex, type CliFlex } from './cli-harness';

/**
 * `flex replay <runId> --verify` online, as a subprocess against a real embedded Flex: every recorded
 * decision re-decided from the run's `GET runs/:id/export`, the same file `flex export` writes and
 * `flex verify-export` and `replay --verify --file` read.
 */
describe('flex replay --verify (subprocess, embedded Flex over HTTP)', () => {
  let h: CliFlex;
  const dir = mkdtempSync(join(tmpdir(), 'flex-replay-'));
  const reDecidedAll = /^re-decided: ok \((\d+) of \1 events\)$/m;

  beforeAll(async () => {
    h = await startCliFlex();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('a completed run re-decides through its export; the exported file re-decides offline and its chain verifies', async () => {
    const run = await h.cli('run', 'examples/envelope.json');
    expect(run.code).toBe(0);
    const runId = runIdOf(run.stderr);
    const replay = await h.cli('replay', runId, '--verify');
    expect(replay.stderr).toMatch(/^verify: ok/m);
    expect(replay.stderr).toMatch(reDecidedAll);
    expect(replay.code).toBe(0);

    const json = await h.cli('replay', runId, '--verify', '--json');
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc.replay).toMatchObject({ open: false, fromRecord: 0, streamId: `run-${runId}` });
    expect(doc.replay.verified).toBe(doc.replay.events);
    expect(doc.replay.divergence).toBeUndefined();

    const file = join(dir, `${runId}.ndjson`);
    expect((await h.cli('export', runId, '--out', file)).code).toBe(0);
    expect(await flexCli({}, 'verify-export', file)).toMatchObject({ code: 0 });
    const offline = await flexCli({}, 'replay', runId, '--verify', '--file', file);
    expect(offline.stderr).toMatch(reDecidedAll);
    expect(offline.code).toBe(0);
  }, 90_000);

  it('a run waiting for a human is verified up to its last event, at once', async () => {
    const run = await h.cli('run', h.envelopeFile('hitl', [HITL]));
    expect(run.code).toBe(6);
    const runId = runIdOf(run.stderr);
    const replay = await h.cli('replay', runId, '--verify');
    expect(replay.stderr).toMatch(
      /^re-decided: ok \((\d+) of \1 events; the run has not ended: verified up to position \d+\)$/m,
    );
    expect(replay.code).toBe(0);
    expect(await h.status(runId)).toBe('awaiting_hitl');
  }, 90_000);

  it("a client token: its own run is checked and re-decided (exit 0); another's run is not found (exit 1)", async () => {
    const client = h.env('cli-client');
    const run = await flexCli(client, 'run', 'examples/envelope.json');
    expect(run.code).toBe(0);
    const runId = runIdOf(run.stderr);
    const replay = await flexCli(client, 'replay', runId, '--verify');
    expect(replay.stderr).toMatch(/^verify: ok/m);
    expect(replay.stderr).toMatch(/^re-decided: ok/m);
    expect(replay.code).toBe(0);
    const json = await flexCli(client, 'replay', runId, '--verify', '--json');
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout).replay;
    expect(report).toMatchObject({ open: false, fromRecord: 0 });
    expect(report.events).toBeGreaterThan(0);
    expect(report.verified).toBe(report.events);
    const operatorRun = await flexCli(h.env('cli-operator'), 'run', 'examples/envelope.json');
    expect(operatorRun.code).toBe(0);
    const hidden = await flexCli(client, 'replay', runIdOf(operatorRun.stderr), '--verify');
    expect(hidden.code).toBe(1);
  }, 90_000);
});
