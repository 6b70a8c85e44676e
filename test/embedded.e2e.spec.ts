import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FlexClient,
  freePort,
  startNodeProcess,
  waitFor,
  waitForHttp,
  type ManagedProcess,
} from '@flex/testing';
import { expectSampleRunCompleted, sampleEnvelope } from './sample-run';

const ROOT = join(__dirname, '..');
const MAIN = join(ROOT, 'apps/flex/dist/embedded/main.js');
const CLI = join(ROOT, 'bin/flex.js');
const TOKENS = 'client-token-aaaa:client,client-token-bbbb:client,admin-token-cccc:admin';

/** `npm start` as a user meets it: one process, data on disk, killed and started again. */
describe('embedded mode (whole process)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'flex-embedded-'));
  let port: number;
  let proc: ManagedProcess | undefined;
  let runId: string;
  let output: any;

  const start = async () => {
    proc = startNodeProcess(
      'flex',
      MAIN,
      { PORT: String(port), FLEX_DATA_DIR: dataDir, FLEX_API_TOKENS: TOKENS, FLEX_LOG_LEVEL: 'warn' },
      ROOT,
    );
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000, () => proc!.output());
  };
  const client = (token = 'client-token-aaaa') => new FlexClient(`http://127.0.0.1:${port}`, token);

  beforeAll(async () => {
    port = await freePort();
    await start();
  }, 90_000);

  afterAll(async () => {
    await proc?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('streams the sample envelope to complete with two distinct variants', async () => {
    const result = await client().runStream(sampleEnvelope());
    expect(result.status).toBe(200);
    ({ runId, output } = expectSampleRunCompleted(result.frames));
    expect(result.runId).toBe(runId);
  }, 60_000);

  it('shows the run to its owner and hides it from another client', async () => {
    const mine = await client().json('GET', `/api/v1/flex/runs/${runId}`);
    expect(mine.status).toBe(200);
    expect(mine.body.run).toMatchObject({ runId, status: 'completed' });
    expect(mine.body.output.output).toEqual(output);
    const theirs = await client('client-token-bbbb').json('GET', `/api/v1/flex/runs/${runId}`);
    expect(theirs).toMatchObject({ status: 404, body: { error: { code: 'run_not_found' } } });
    const admin = await client('admin-token-cccc').json('GET', `/api/v1/flex/runs/${runId}`);
    expect(admin.status).toBe(200);
  });

  it('rejects a bad envelope with 400 naming the path, and changes nothing', async () => {
    const before = (await client().json('GET', '/api/v1/flex/runs')).body.runs.length;
    const bad = sampleEnvelope();
    bad.policies = {
      runtime: [{ id: 'p1', trigger: { kind: 'manual' }, action: { type: 'goto', next: 'x' } }],
    };
    const res = await client().runStream(bad);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_envelope');
    expect(JSON.stringify(res.body.error)).toContain('policies.runtime[0].action');
    expect(JSON.stringify(res.body.error)).toMatch(/replan/);
    expect((await client().json('GET', '/api/v1/flex/runs')).body.runs.length).toBe(before);
  });

  it('refuses a second process on the same data directory', async () => {
    const second = startNodeProcess(
      'flex-2',
      MAIN,
      { PORT: String(await freePort()), FLEX_DATA_DIR: dataDir, FLEX_API_TOKENS: TOKENS },
      ROOT,
    );
    const code = await new Promise<number | null>((resolve) => second.child.once('exit', resolve));
    expect(code).toBe(1);
    // One clear line, no stack trace.
    expect(second.output()).toMatch(/^flex: another Flex process \(pid \d+\) is using .+\n$/);
  }, 30_000);

  it('serves the dashboard page and its bundle without a token, with a strict content security policy', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).not.toMatch(/unsafe/);
    const script = /<script type="module" src="(\/assets\/app-[^"]+\.js)"/.exec(await res.text())?.[1];
    const bundle = await fetch(`http://127.0.0.1:${port}${script}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect(bundle.headers.get('cache-control')).toMatch(/immutable/);
    expect(await bundle.text()).toContain('/api/v1/flex/');
  });

  it('refuses requests without a valid token', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/flex/runs`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.code).toBe('unauthorized');
  });

  const flex = async (token: string, ...args: string[]) => {
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
        cwd: ROOT,
        env: { ...process.env, FLEX_URL: `http://127.0.0.1:${port}`, FLEX_TOKEN: token },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  it('runs, lists and verifies runs from the CLI', async () => {
    const run = await flex('client-token-aaaa', 'run', 'examples/envelope.json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).copyVariants).toHaveLength(2);
    expect(run.stderr).toMatch(/plan_generated/);
    const list = await flex('client-token-aaaa', 'runs');
    expect(list.stdout).toContain(runId);
    const replay = await flex('client-token-aaaa', 'replay', runId, '--verify');
    expect(replay).toMatchObject({ code: 0 });
    expect(replay.stderr).toMatch(/verify: ok/);
    const denied = await flex('client-token-aaaa', 'projections', 'rebuild');
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/HTTP 403/);
  }, 60_000);

  it('waits for a human and continues when the CLI approves', async () => {
    const envelope = sampleEnvelope();
    envelope.policies.requiresHitlApproval = true;
    const stream = client().runStream(envelope);
    const pending = await waitFor(async () => {
      const { runs } = (await client().json('GET', '/api/v1/flex/runs?status=awaiting_hitl')).body;
      return runs[0]?.runId as string | undefined;
    }, 30_000);
    const approved = await flex('admin-token-cccc', 'hitl', pending, 'approve', '--note', 'looks good');
    expect(approved.code).toBe(0);
    const { frames } = await stream;
    const types = frames.map((f) => f.type);
    expect(types).toEqual(expect.arrayContaining(['policy_triggered', 'hitl_request', 'hitl_resolved']));
    expect(types.indexOf('hitl_resolved')).toBeGreaterThan(types.indexOf('hitl_request'));
    expect(types[types.length - 1]).toBe('complete');
    const again = await flex('admin-token-cccc', 'hitl', pending, 'approve');
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/no pending HITL request/);
  }, 60_000);

  it('cancels a run from the CLI (flex cancel): exit 0, 0 again when already cancelled, 1 for an ended run or a hidden one, 2 without a run id', async () => {
    const envelope = sampleEnvelope();
    envelope.policies.requiresHitlApproval = true;
    const run = await client().start(envelope);
    const status = async () =>
      (await client().json('GET', `/api/v1/flex/runs/${run.runId}`)).body.run?.status;
    await waitFor(async () => (await status()) === 'awaiting_hitl', 30_000);

    const cancelled = await flex('client-token-aaaa', 'cancel', run.runId, '--reason', 'from the CLI');
    expect(cancelled).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(new RegExp(`^run ${run.runId} cancelled \\(event \\d+\\)\n$`)),
    });
    const frames = await run.ended;
    const last = frames[frames.length - 1];
    expect(last).toMatchObject({
      type: 'run_cancelled',
      payload: { reason: 'from the CLI', from: 'awaiting_hitl' },
    });
    expect(last.payload.closedHitlRequests).toHaveLength(1);
    expect(await status()).toBe('cancelled');

    const again = await flex('client-token-aaaa', 'cancel', run.runId, '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      ok: true,
      runId: run.runId,
      status: 'cancelled',
      alreadyCancelled: true,
      event: { id: last.id, position: last.position },
    });
    const ended = await flex('client-token-aaaa', 'cancel', runId);
    expect(ended.code).toBe(1);
    expect(ended.stderr).toMatch(/HTTP 409 run_already_ended: run \S+ has already ended \(completed\)/);
    const theirs = await flex('client-token-bbbb', 'cancel', run.runId);
    expect(theirs.code).toBe(1);
    expect(theirs.stderr).toMatch(/HTTP 404 run_not_found/);
    const usage = await flex('client-token-aaaa', 'cancel');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/flex cancel <runId>/);
    const replay = await flex('client-token-aaaa', 'replay', run.runId, '--verify');
    expect(replay).toMatchObject({ code: 0, stderr: expect.stringMatching(/verify: ok/) });
  }, 60_000);

  it('rebuilds the read models from the event store to the same state', async () => {
    const before = await client('admin-token-cccc').json('GET', `/api/v1/flex/runs/${runId}`);
    const rebuilt = await flex('admin-token-cccc', 'projections', 'rebuild');
    expect(rebuilt.code).toBe(0);
    const after = await client('admin-token-cccc').json('GET', `/api/v1/flex/runs/${runId}`);
    expect(after.body).toEqual(before.body);
  }, 60_000);

  it('still shows the run, and replays its events, after a kill and a restart', async () => {
    const before = await client().events(runId);
    await proc!.kill('SIGKILL');
    await start();
    const after = await client().json('GET', `/api/v1/flex/runs/${runId}`);
    expect(after.body.run.status).toBe('completed');
    expect(after.body.output.output).toEqual(output);
    expect(await client().events(runId)).toEqual(before);
    const tail = await client().events(runId, before[2].position);
    expect(tail).toEqual(before.slice(3));
  }, 90_000);
});
