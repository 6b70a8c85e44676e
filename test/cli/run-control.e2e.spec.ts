import { parseSse } from '@flex/testing';
import { flexCli, HITL, ndjson, PAUSE, runIdOf, startCliFlex, type CliFlex } from './cli-harness';

/** `flex pause`, `flex resume` and `flex events` (stored only), as a subprocess against an embedded Flex. */
describe('flex pause, resume and events (subprocess, embedded Flex over HTTP)', () => {
  let h: CliFlex;
  const cli = (...args: string[]) => h.cli(...args);
  const status = (runId: string) => h.status(runId);
  const envelopeFile = (name: string, runtime: unknown[]) => h.envelopeFile(name, runtime);

  beforeAll(async () => {
    h = await startCliFlex();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('resume: a paused run continues on its current plan version to complete (exit 0); resumed again: 409, exit 1', async () => {
    const run = await cli('run', envelopeFile('pause', [PAUSE]));
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/is paused: flex resume \S+ continues it/);
    const runId = runIdOf(run.stderr);

    const resumed = await cli('resume', runId);
    expect({ code: resumed.code, stderr: resumed.stderr }).toEqual({
      code: 0,
      stderr: expect.stringContaining(`run ${runId} resumed on plan version 1`),
    });
    expect(JSON.parse(resumed.stdout).copyVariants).toHaveLength(2);
    expect(resumed.stderr).toMatch(/run_resumed[\s\S]*complete/);
    expect(await status(runId)).toBe('completed');

    const again = await cli('resume', runId);
    expect(again).toMatchObject({
      code: 1,
      stderr: `flex: cannot resume run ${runId}: run ${runId} is completed, not paused\n`,
    });
  }, 90_000);

  it('resume --plan-version: a stale one is a 409 that says what to do (exit 1); a bad one is usage (exit 2)', async () => {
    const run = await cli('run', envelopeFile('pause-stale', [PAUSE]));
    const runId = runIdOf(run.stderr);
    const stale = await cli('resume', runId, '--plan-version', '2', '--json');
    expect(stale.code).toBe(1);
    expect(JSON.parse(stale.stderr).error).toMatchObject({
      exitCode: 1,
      http: { status: 409, code: 'stale_plan_version' },
      message: expect.stringMatching(/not 2 \(run flex resume \S+ without --plan-version/),
    });
    for (const bad of ['two', '0', '-1', '1.5']) {
      const r = await cli('resume', runId, `--plan-version=${bad}`);
      expect({ bad, code: r.code }).toEqual({ bad, code: 2 });
    }
    expect(await status(runId)).toBe('paused');
    const resumed = await cli('resume', runId, '--plan-version', '1', '--json');
    expect(resumed.code).toBe(0);
    const frames = ndjson(resumed.stdout);
    expect(frames[0].type).toBe('run_resumed');
    expect(frames.at(-1).type).toBe('complete');
    expect(resumed.stderr).toBe('');
  }, 90_000);

  it('pause: a run waiting for a human pauses (exit 0); resumed, it waits for the human again (exit 6); pausing twice is 409', async () => {
    const run = await cli('run', envelopeFile('hitl-pause', [HITL]));
    expect(run.code).toBe(6);
    const runId = runIdOf(run.stderr);
    const paused = await cli('pause', runId, '--reason', 'lunch');
    expect(paused).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(`^run ${runId} paused \\(event \\d+\\)`),
    });
    expect(await status(runId)).toBe('paused');
    const twice = await cli('pause', runId);
    expect(twice).toMatchObject({
      code: 1,
      stderr: `flex: cannot pause run ${runId}: run ${runId} is already paused (lunch)\n`,
    });
    const asClient = await flexCli(h.env('cli-client'), 'pause', runId);
    expect(asClient.code).toBe(8);

    // The request raised before the pause is still pending: the resumed run rests waiting for it.
    const resumed = await cli('resume', runId);
    expect(resumed.code).toBe(6);
    expect(resumed.stderr).toMatch(/waiting for a human/);
    expect(await status(runId)).toBe('awaiting_hitl');
    expect((await cli('hitl', 'approve', runId)).code).toBe(0);
    expect((await cli('events', runId, '--wait')).code).toBe(0);
  }, 90_000);

  it('pause --json: the API answer; a paused run resumed with --wait follows to the end', async () => {
    const run = await cli('run', envelopeFile('hitl-pause-json', [HITL]));
    const runId = runIdOf(run.stderr);
    const paused = await cli('pause', runId, '--json');
    expect(JSON.parse(paused.stdout)).toMatchObject({ ok: true, runId, status: 'paused' });
    expect((await cli('hitl', 'approve', runId)).code).toBe(0);
    const resumed = await cli('resume', runId, '--wait', '--json');
    expect(resumed.code).toBe(0);
    expect(ndjson(resumed.stdout).at(-1).type).toBe('complete');
  }, 90_000);

  it('events without --follow: what is stored, at once, on a run that has not ended (exit 0, even for a failed run)', async () => {
    const run = await cli('run', envelopeFile('hitl-stored', [HITL]));
    const runId = runIdOf(run.stderr);
    const stored = await cli('events', runId, '--json');
    expect(stored.code).toBe(0);
    const text = await (
      await fetch(`${h.flex.url}/api/v1/flex/runs/${runId}/events?follow=false`, {
        headers: { Authorization: 'Bearer cli-operator' },
      })
    ).text();
    const keys = (frames: Array<{ position: number; id: string }>) =>
      frames.map((f) => `${f.position}:${f.id}`);
    expect(keys(ndjson(stored.stdout))).toEqual(keys(parseSse(text)));
    expect(ndjson(stored.stdout).at(-1).type).toBe('hitl_request');
    expect((await cli('hitl', 'reject', runId)).code).toBe(0);
    expect((await cli('events', runId, '--follow')).code).toBe(3);
    const failed = await cli('events', runId);
    expect(failed.code).toBe(0);
    expect(failed.stdout).toMatch(/run_failed/);
  }, 90_000);
});
