import type { StoredEvent } from '@flex/event-store';
import { replayAdapters } from '@flex/replay';
import { whatIfWithin } from './policy-what-if';

/** The time budget of POST admin/policy-what-if: runs are re-decided until the work done exceeds it. */
describe('whatIfWithin', () => {
  const event = (runId: string, timestamp: string): StoredEvent => ({
    position: 1,
    id: `${runId}-1`,
    streamId: `run-${runId}`,
    version: 1,
    type: 'start',
    payload: { envelope: { objective: 'x' } },
    metadata: { correlationId: 'c', producer: 'gateway' },
    timestamp,
  });
  const engine = { adapters: replayAdapters(), budgetMs: 100 };
  /** Reading (and re-deciding) a run takes `costMs` on the test's clock. */
  const timed = (costMs: number) => {
    let clock = 0;
    const read = async (runId: string) => {
      clock += costMs;
      return [event(runId, '2026-01-02T00:00:00.000Z')];
    };
    return { read, now: () => clock };
  };

  it('re-decides every run within the budget', async () => {
    const { read, now } = timed(40);
    const report = await whatIfWithin(['a', 'b', 'c'], [], engine, read, now);
    expect(report.runs.map((r) => r.runId)).toEqual(['a', 'b', 'c']);
  });

  it('past the budget with runs left: a 422 saying how far it got', async () => {
    const { read, now } = timed(60);
    const refused = whatIfWithin(['a', 'b', 'c', 'd'], [], engine, read, now);
    await expect(refused).rejects.toMatchObject({
      status: 422,
      response: {
        error: {
          code: 'what_if_budget_exceeded',
          details: { budgetMs: 100, runsDone: 2, runsSelected: 4 },
        },
      },
    });
  });

  it('keeps only the runs started at or after `since`', async () => {
    const { read, now } = timed(1);
    const report = await whatIfWithin(['a'], [], engine, read, now, { since: '2026-01-03T00:00:00Z' });
    expect(report.runs).toEqual([]);
  });
});
