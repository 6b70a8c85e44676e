import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlexClient, waitFor } from '@flex/testing';
import { FAIL, flexCli, HITL, ndjson, PAUSE, runIdOf, startCliFlex, type CliFlex } from './cli-harness';

/** The CLI as scripts and people use it: a subprocess against a real embedded Flex over HTTP. */
describe('flex CLI (subprocess, embedded Flex over HTTP)', () => {
  let h: CliFlex;
  const cli = (...args: string[]) => h.cli(...args);
  const env = (token?: string) => h.env(token);
  const envelopeFile = (name: string, runtime: unknown[]) => h.envelopeFile(name, runtime);
  const api = () => new FlexClient(h.flex.url, 'cli-operator');
  const status = (runId: string) => h.status(runId);

  beforeAll(async () => {
    h = await startCliFlex();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('complete: exit 0, the output on stdout, progress lines on stderr', async () => {
    const run = await cli('run', 'examples/envelope.json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).copyVariants).toHaveLength(2);
    expect(run.stderr).toMatch(/plan_generated/);
    expect(run.stderr).toMatch(/node_complete/);
  }, 60_000);

  it('--json: NDJSON frames ending at complete, nothing else on stdout', async () => {
    const run = await cli('run', '--json', 'examples/envelope.json');
    expect(run.code).toBe(0);
    const frames = ndjson(run.stdout);
    expect(frames[0]).toMatchObject({ type: 'start', position: expect.any(Number) });
    expect(frames[frames.length - 1].type).toBe('complete');
    expect(run.stderr).toBe('');
  }, 60_000);

  it('failed: exit 3 with the reason', async () => {
    const run = await cli('run', envelopeFile('fail', [FAIL]));
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/failed: .*stopped early/);
  }, 60_000);

  it('paused: exit 5, and events --follow on the paused run does not wait unless --wait', async () => {
    const run = await cli('run', envelopeFile('pause', [PAUSE]));
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/is paused/);
    const runId = runIdOf(run.stderr);
    expect(await status(runId)).toBe('paused');
    const follow = await cli('events', runId, '--follow', '--json');
    expect(follow.code).toBe(5);
    expect(ndjson(follow.stdout).pop().type).toBe('run_paused');
  }, 60_000);

  it('waiting for a human: exit 6 at once; hitl list shows it; approve ends events --wait at complete', async () => {
    const run = await cli('run', envelopeFile('hitl', [HITL]));
    expect(run.code).toBe(6);
    expect(run.stderr).toMatch(/waiting for a human/);
    const runId = runIdOf(run.stderr);
    expect(await status(runId)).toBe('awaiting_hitl');

    const list = await cli('hitl', 'list', '--json');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).requests).toContainEqual(
      expect.objectContaining({ runId, requestId: 'hitl-1', rationale: 'Check first' }),
    );
    expect((await cli('hitl', 'list', runId)).stdout).toMatch(new RegExp(`^${runId}  hitl-1 `, 'm'));
    const replay = await cli('replay', runId);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toMatch(/hitl_request/);
    expect((await cli('events', runId, '--follow')).code).toBe(6);

    const following = cli('events', runId, '--wait', '--json');
    await new Promise((r) => setTimeout(r, 1500));
    const approved = await cli('hitl', 'approve', runId, '--note', 'looks good', '--json');
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ ok: true, decision: 'approve' });
    const followed = await following;
    expect(followed.code).toBe(0);
    const frames = ndjson(followed.stdout);
    expect(frames.map((f) => f.type)).toEqual(expect.arrayContaining(['hitl_request', 'hitl_resolved']));
    expect(frames[frames.length - 1].type).toBe('complete');
    for (let i = 1; i < frames.length; i++)
      expect(frames[i].position).toBeGreaterThan(frames[i - 1].position);
    const again = await cli('hitl', 'approve', runId);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringMatching(/no pending HITL request/) });
  }, 90_000);

  it('reject: the run fails (events --follow exits 3); run --wait follows a human decision to the end', async () => {
    const waiting = cli('run', '--wait', envelopeFile('hitl-wait', [HITL]));
    const runId = await waitFor(async () => {
      const { runs } = (await api().json('GET', '/api/v1/flex/runs?status=awaiting_hitl')).body;
      return runs.find((r: any) => r.objective)?.runId as string | undefined;
    }, 30_000);
    const rejected = await cli('hitl', 'reject', runId, '--note', 'no');
    expect(rejected).toMatchObject({ code: 0, stdout: `rejected hitl-1 of run ${runId}\n` });
    expect((await waiting).code).toBe(3);
    expect((await cli('events', runId, '--follow')).code).toBe(3);
  }, 90_000);

  it('cancelled: flex cancel, then events --follow and replay end at run_cancelled (exit 4)', async () => {
    const run = await cli('run', envelopeFile('cancel', [HITL]));
    const runId = runIdOf(run.stderr);
    const cancelled = await cli('cancel', runId, '--reason', 'from the CLI');
    expect(cancelled.code).toBe(0);
    const follow = await cli('events', runId, '--follow', '--json');
    expect(follow.code).toBe(4);
    expect(ndjson(follow.stdout).pop()).toMatchObject({ type: 'run_cancelled' });
    expect((await cli('cancel', runId, '--json')).code).toBe(0);
  }, 60_000);

  it('bad input, unknown flags and subcommands: exit 2 with the usage; nothing is started', async () => {
    const before = (await api().json('GET', '/api/v1/flex/runs?limit=500')).body.runs.length;
    const missing = await cli('run', join(tmpdir(), 'flex-cli-nope', 'nope.json'));
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringMatching(/cannot read/) });
    const goto = await cli(
      'run',
      envelopeFile('goto', [{ id: 'g', trigger: { kind: 'manual' }, action: { type: 'goto' } }]),
    );
    expect(goto).toMatchObject({ code: 2, stderr: expect.stringMatching(/HTTP 400 invalid_envelope/) });
    for (const argv of [
      ['run', 'examples/envelope.json', '--bogus'],
      ['runs', '--wait'],
      ['cancel'],
      ['hitl', 'foo'],
      ['hitl', 'list', 'a', 'b'],
      ['frobnicate'],
      [],
    ]) {
      const r = await cli(...argv);
      expect({ argv, code: r.code }).toEqual({ argv, code: 2 });
      expect(r.stderr).toMatch(/usage:/);
      expect(r.stdout).toBe('');
    }
    expect((await cli('runs', '--status', 'bogus')).code).toBe(2);
    expect((await api().json('GET', '/api/v1/flex/runs?limit=500')).body.runs.length).toBe(before);
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/exit codes:[\s\S]*6 {2}the run is waiting for a human/);
  }, 60_000);

  it('runs: --json one document, --limit pages with a cursor, --all every page', async () => {
    const all = JSON.parse((await cli('runs', '--json', '--all', '--limit', '2')).stdout);
    expect(all.next).toBeNull();
    expect(all.runs.length).toBeGreaterThan(3);
    const first = JSON.parse((await cli('runs', '--limit', '2', '--json')).stdout);
    expect(first.runs).toEqual(all.runs.slice(0, 2));
    const second = JSON.parse((await cli('runs', '--json', '--cursor', first.next, '--limit', '2')).stdout);
    expect(second.runs).toEqual(all.runs.slice(2, 4));
    const failed = JSON.parse((await cli('runs', '--status', 'failed', '--json')).stdout);
    expect(failed.runs.length).toBeGreaterThan(0);
    expect(failed.runs.every((r: any) => r.status === 'failed')).toBe(true);
    const text = await cli('runs', '--limit', '1');
    expect(text.stderr).toMatch(/more: flex runs --cursor \S+/);
  }, 60_000);

  it('unreachable server (7) and a bad token (8), as JSON errors with --json', async () => {
    const down = await flexCli({ FLEX_URL: 'http://127.0.0.1:1', FLEX_TOKEN: 'x' }, 'runs', '--json');
    expect(down.code).toBe(7);
    expect(JSON.parse(down.stderr).error).toMatchObject({ exitCode: 7 });
    const denied = await flexCli(env('wrong-token'), 'runs');
    // With its stderr, so that another exit code says why.
    expect({ code: denied.code, stderr: denied.stderr }).toEqual({ code: 8, stderr: expect.any(String) });
  }, 30_000);
});
