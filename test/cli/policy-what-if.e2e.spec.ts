import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { FlexClient, type TestDatabase } from '@flex/testing';
import type { EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { envelopeWithPolicies } from '../integration/embedded-run';
import { FAIL, flexCli, startPostgresFlex } from './cli-harness';

const TOKENS = 'whatif-operator:operator,whatif-client:client';
const ESCALATE = { id: 'escalate', trigger: { kind: 'onNodeComplete' }, action: { type: 'hitl' } };

/**
 * Policy what-if (docs/AUDIT.md) against runs the real system recorded in a real Postgres (embedded
 * Flex with FLEX_DATABASE_URL and NATS): `flex policy what-if` as a subprocess over HTTP, and
 * `POST admin/policy-what-if`. Neither writes: the store's last position and the read model are the
 * same before and after.
 */
describe('policy what-if on a real Postgres: flex policy what-if and POST admin/policy-what-if', () => {
  let db: TestDatabase;
  let flex: EmbeddedFlex;
  let pg: Client;
  let plain: string;
  let failing: string;
  let before: Snapshot;
  const dir = mkdtempSync(join(tmpdir(), 'flex-whatif-'));
  const cli = (...args: string[]) =>
    flexCli({ FLEX_URL: flex.url, FLEX_TOKEN: 'whatif-operator' }, 'policy', 'what-if', ...args);
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(content));
    return path;
  };
  const post = (token: string, body: unknown) =>
    new FlexClient(flex.url, token).json('POST', '/api/v1/flex/admin/policy-what-if', body);

  beforeAll(async () => {
    ({ db, flex, pg } = await startPostgresFlex('policy_what_if', { FLEX_API_TOKENS: TOKENS }));
    const operator = new FlexClient(flex.url, 'whatif-operator');
    const completed = await operator.runStream(envelopeWithPolicies([]));
    expect(completed.frames.at(-1)?.type).toBe('complete');
    const failed = await operator.runStream(envelopeWithPolicies([FAIL]));
    expect(failed.frames.at(-1)?.type).toBe('run_failed');
    [plain, failing] = [completed.runId as string, failed.runId as string];
    before = await snapshot();
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await flex?.close();
    await db?.drop();
  });

  interface Snapshot {
    maxPosition: number;
    events: number;
    runs: unknown;
  }
  async function snapshot(): Promise<Snapshot> {
    const { rows } = await pg.query('select max(position)::int as max, count(*)::int as n from events');
    const runs = await new FlexClient(flex.url, 'whatif-operator').json('GET', '/api/v1/flex/runs?limit=500');
    const details = await Promise.all(
      [plain, failing].map(
        async (id) =>
          (await new FlexClient(flex.url, 'whatif-operator').json('GET', `/api/v1/flex/runs/${id}`)).body,
      ),
    );
    return { maxPosition: rows[0].max, events: rows[0].n, runs: { list: runs.body, details } };
  }

  it('the CLI lists per run the decisions an escalating policy would change, and the totals', async () => {
    const policies = file('escalate.json', { runtime: [ESCALATE] });
    const result = await cli('--policies', policies, '--runs', `${plain},${failing}`, '--json');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const report = JSON.parse(result.stdout);
    expect(report.policies).toEqual(['escalate']);
    const [escalated, unfailed] = report.runs;
    expect(escalated).toMatchObject({
      runId: plain,
      verdict: 'changed',
      outcome: { recorded: 'complete', whatIf: 'unknown' },
    });
    expect(escalated.changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'hitl', change: 'new', policyId: 'escalate' }),
      ]),
    );
    expect(escalated.divergence).toMatchObject({ type: expect.any(String), position: expect.any(Number) });
    // The run that failed on its onStart policy: that DENY and its ending vanish.
    expect(unfailed).toMatchObject({ runId: failing, verdict: 'changed', policies: ['stop'] });
    expect(unfailed.changes.map((c: any) => `${c.kind}:${c.change}`).sort()).toEqual([
      'deny:vanished',
      'outcome:vanished',
    ]);
    expect(report.totals).toMatchObject({ runs: 2, changed: 2, unchanged: 0, notComparable: 0 });
    expect(report.totals.byKind.hitl.new).toBe(1);

    const human = await cli('--policies', policies, '--runs', `${plain},${failing}`);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^${plain}  changed at position \\d+`, 'm'));
    expect(human.stdout).toMatch(/^ {4}\+ hitl +hitl_request approval \(policy escalate, node /m);
    expect(human.stdout).toMatch(/^totals: 2 changed, 0 unchanged, 0 not comparable/m);
    expect(human.stdout).toContain('nothing after it is compared');
  }, 60_000);

  it('with the runs’ own policies nothing changes; selection by default, --limit and --since', async () => {
    const own = file('own.json', { runtime: [FAIL] });
    const newest = JSON.parse((await cli('--policies', own, '--limit', '1', '--json')).stdout);
    expect(newest.runs.map((r: any) => r.runId)).toEqual([failing]);
    expect(newest.runs[0]).toMatchObject({
      verdict: 'unchanged',
      outcome: { recorded: 'run_failed', changed: false },
    });
    const all = JSON.parse((await cli('--policies', own, '--json')).stdout);
    expect(all.runs.map((r: any) => r.runId).sort()).toEqual([plain, failing].sort());
    const future = JSON.parse(
      (await cli('--policies', own, '--since', '2999-01-01T00:00:00Z', '--json')).stdout,
    );
    expect(future.runs).toEqual([]);
    const named = JSON.parse(
      (await cli('--policies', own, '--runs', plain, '--since', '2999-01-01T00:00:00Z', '--json')).stdout,
    );
    expect(named.runs).toEqual([]);
  }, 60_000);

  it('a bad policy file is exit 2 naming the JSON path; a missing --policies is a usage error', async () => {
    const bad = file('bad.json', {
      runtime: [{ id: 'x', trigger: { kind: 'onStart' }, action: { type: 'goto' } }],
    });
    const refused = await cli('--policies', bad);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('runtime[0].action.type');
    expect((await cli('--runs', plain)).code).toBe(2);
    expect((await cli('--policies', bad, '--limit', '101')).code).toBe(2);
  }, 30_000);

  it('the endpoint answers what the CLI does, to an operator only; bad input is a 400 naming the path, too many runs a 413', async () => {
    const policies = { runtime: [ESCALATE] };
    const answer = await post('whatif-operator', { policies, runs: [plain, failing] });
    expect(answer.status).toBe(200);
    const viaCli = await cli(
      '--policies',
      file('same.json', policies),
      '--runs',
      `${plain},${failing}`,
      '--json',
    );
    expect(answer.body).toEqual(JSON.parse(viaCli.stdout));
    expect((await post('whatif-client', { policies, runs: [plain] })).status).toBe(403);
    // Merged with each run's own: the run that failed on start still does, before any node completes.
    const merged = await post('whatif-operator', { policies, mode: 'merge', runs: [plain, failing] });
    expect(merged.body.runs.map((r: any) => r.verdict)).toEqual(['changed', 'unchanged']);
    expect(merged.body).toMatchObject({ mode: 'merge', totals: { changed: 1, unchanged: 1 } });
    const bad = await post('whatif-operator', {
      policies: { runtime: [{ id: 'x', trigger: { kind: 'soon' }, action: { type: 'fail' } }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_policies' });
    expect(bad.body.error.details.issues[0].path).toBe('policies.runtime[0].trigger.kind');
    const unknown = await post('whatif-operator', { policies, run: [plain] });
    expect(unknown.status).toBe(400);
    const many = await post('whatif-operator', {
      policies,
      runs: Array.from({ length: 101 }, (_, i) => `r${i}`),
    });
    expect(many.status).toBe(413);
    expect(many.body.error).toMatchObject({ code: 'too_many_runs', details: { path: 'runs', max: 100 } });
    expect((await post('whatif-operator', { policies, limit: 101 })).status).toBe(413);
    expect((await post('whatif-operator', { policies, runs: ['no_such_run'] })).status).toBe(404);
  }, 60_000);

  it('wrote nothing: the store’s last position, its events and the read model are as before', async () => {
    expect(await snapshot()).toEqual(before);
  });
});
