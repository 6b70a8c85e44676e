import { RUN_STATUSES, type RunStatus } from '@flex/contracts';
import fc from 'fast-check';
import type { ReadModelDatabase } from './read-models.table';
import { listRuns, type RunCursor, type RunFilter } from './run-list.query';
import { openReadModelsDb, type ReadModelsDb } from './runs.spec-helper';

const RUNS = Number(process.env.FLEX_PAGING_RUNS ?? 60);
const T0 = Date.parse('2026-05-01T08:00:00.000Z');
const OWNERS = ['tok_a', 'tok_b', 'tok_c'];
const CAPABILITIES = ['Writer.en', 'Reviewer', 'Brief'];

interface GivenRun {
  runId: string;
  owner: string;
  status: RunStatus;
  /** Few distinct times, so that many runs share one and the run id breaks the tie. */
  createdAt: string;
  capabilities: string[];
}

const timeArb = fc
  .integer({ min: 0, max: 11 })
  .map((k) => new Date(T0 + Math.floor(k / 2) * 1_000 + (k % 2)));
const runArb = fc.record({
  owner: fc.constantFrom(...OWNERS),
  status: fc.constantFrom(...RUN_STATUSES),
  createdAt: timeArb.map((d) => d.toISOString()),
  capabilities: fc.uniqueArray(fc.constantFrom(...CAPABILITIES), { maxLength: 2 }),
});
// Ids of one length over [0-9a-f]: any collation orders them as their bytes do, like the JS sort below.
const runsArb = fc
  .uniqueArray(fc.integer({ min: 0, max: 0xffffff }), { maxLength: 60 })
  .chain((ids) =>
    fc.tuple(...ids.map(() => runArb)).map((runs) => runs.map((r, i) => ({ ...r, runId: id(ids[i]) }))),
  );
const windowArb = fc
  .tuple(timeArb, timeArb)
  .map(([a, b]) => (a <= b ? [a, b] : [b, a]).map((d) => d.toISOString()) as [string, string]);
const filterKeys = {
  owner: fc.constantFrom(...OWNERS),
  statuses: fc.uniqueArray(fc.constantFrom(...RUN_STATUSES), { minLength: 1, maxLength: 4 }),
  capabilityId: fc.constantFrom(...CAPABILITIES),
  since: timeArb.map((d) => d.toISOString()),
  until: timeArb.map((d) => d.toISOString()),
};
/** Mostly no filter or one, sometimes a time window, sometimes all at once (often matching nothing). */
const filterArb: fc.Arbitrary<RunFilter> = fc.oneof(
  { arbitrary: fc.constant({}), weight: 2 },
  {
    arbitrary: fc.oneof(
      ...Object.entries(filterKeys).map(([key, arb]) => arb.map((value: unknown) => ({ [key]: value }))),
    ),
    weight: 5,
  },
  { arbitrary: windowArb.map(([since, until]) => ({ since, until })), weight: 2 },
  { arbitrary: fc.record(filterKeys, { requiredKeys: [] }), weight: 1 },
);

const id = (n: number) => `run_${n.toString(16).padStart(6, '0')}`;

/** What the filter keeps, newest first then run id descending: the order `listRuns` promises. */
function expected(runs: readonly GivenRun[], f: RunFilter): string[] {
  return runs
    .filter(
      (r) =>
        (f.owner === undefined || r.owner === f.owner) &&
        (f.statuses === undefined || f.statuses.includes(r.status)) &&
        (f.capabilityId === undefined || r.capabilities.includes(f.capabilityId)) &&
        (f.since === undefined || r.createdAt >= f.since) &&
        (f.until === undefined || r.createdAt < f.until),
    )
    .sort((a, b) => (a.createdAt === b.createdAt ? cmp(b.runId, a.runId) : cmp(b.createdAt, a.createdAt)))
    .map((r) => r.runId);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe.each(['pglite', 'postgres'] as const)('GET runs pages on %s', (kind) => {
  let db: ReadModelsDb;

  beforeAll(async () => {
    db = await openReadModelsDb(kind, 'run_list');
  }, 60_000);

  afterAll(async () => {
    await db?.close();
  });

  const tables = () => db.database.db.withTables<ReadModelDatabase>();

  async function given(runs: readonly GivenRun[]): Promise<void> {
    await tables().deleteFrom('plan_nodes').execute();
    await tables().deleteFrom('runs').execute();
    for (const r of runs) await insert(r);
  }

  async function insert(r: GivenRun): Promise<void> {
    await tables()
      .insertInto('runs')
      .values({
        run_id: r.runId,
        owner: r.owner,
        owner_role: 'client',
        status: r.status,
        objective: `objective of ${r.runId}`,
        plan_version: 0,
        satisfaction_score: null,
        observed_satisfaction: null,
        failure_code: null,
        failure_reason: null,
        failure_diagnostics: null,
        envelope: JSON.stringify({ objective: 'o', inputs: {}, outputContract: { schema: {} } }),
        created_at: r.createdAt,
        updated_at: r.createdAt,
        last_position: 1,
        last_event_type: 'start',
      })
      .execute();
    for (const [i, capabilityId] of r.capabilities.entries())
      await tables()
        .insertInto('plan_nodes')
        .values({
          run_id: r.runId,
          node_id: `n${i}`,
          kind: 'execution',
          capability_id: capabilityId,
          status: 'pending',
          attempt: 0,
          output: null,
          error: null,
          updated_at: r.createdAt,
        })
        .execute();
  }

  /** Every page in turn, `between` run after each page but the last. */
  async function allPages(filter: RunFilter, limit: number, between?: (page: number) => Promise<void>) {
    const seen: string[] = [];
    let after: RunCursor | undefined;
    for (let page = 0; page < 1_000; page++) {
      const result = await listRuns(db.database.db, { ...filter, limit, after });
      expect(result.runs.length).toBeLessThanOrEqual(limit);
      seen.push(...result.runs.map((r) => r.runId));
      if (!result.next) return seen;
      expect(result.runs).toHaveLength(limit);
      after = result.next;
      await between?.(page);
    }
    throw new Error('more than 1,000 pages');
  }

  it('any page size, any filters: every run the filters keep, exactly once, newest first', async () => {
    await fc.assert(
      fc.asyncProperty(runsArb, filterArb, fc.integer({ min: 1, max: 25 }), async (runs, filter, limit) => {
        await given(runs);
        expect(await allPages(filter, limit)).toEqual(expected(runs, filter));
      }),
      { numRuns: RUNS },
    );
  }, 300_000);

  it('runs started while a client pages do not shift or repeat the pages it has not read yet', async () => {
    await fc.assert(
      fc.asyncProperty(runsArb, fc.integer({ min: 1, max: 10 }), async (runs, limit) => {
        await given(runs);
        let added = 0;
        const later = async () => {
          added += 1;
          const createdAt = new Date(T0 + 60_000 + added).toISOString();
          await insert({
            runId: id(0x1000000 + added),
            owner: 'tok_a',
            status: 'planning',
            createdAt,
            capabilities: [],
          });
        };
        expect(await allPages({}, limit, later)).toEqual(expected(runs, {}));
      }),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  }, 300_000);

  it('an empty page has no next; the last full page has none either', async () => {
    await given([]);
    expect(await listRuns(db.database.db, { limit: 5 })).toEqual({ runs: [] });
    const three = [1, 2, 3].map((n) => ({
      runId: id(n),
      owner: 'tok_a',
      status: 'completed' as const,
      createdAt: new Date(T0 + n).toISOString(),
      capabilities: [],
    }));
    await given(three);
    const page = await listRuns(db.database.db, { limit: 3 });
    expect(page.runs.map((r) => r.runId)).toEqual([id(3), id(2), id(1)]);
    expect(page.next).toBeUndefined();
  });
});
