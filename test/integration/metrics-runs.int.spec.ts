import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePrometheusText, sampleSum, waitFor, type Frame, type PromScrape } from '@flex/testing';
import { useEmbeddedFlex } from './embedded-flex';

const TOKEN = 'metrics-runs-client';
const sample = () => JSON.parse(readFileSync(join(__dirname, '../../examples/envelope.json'), 'utf8'));
const types = (frames: Frame[]) => frames.map((f) => f.type);

/**
 * Each run is counted once, by the process whose append of its terminal event succeeded, whichever
 * service that is: the planner (no plan), the validator (plan refused), the executor (complete).
 * The embedded system over HTTP (PGlite, in-process bus); scrapes of its real `GET /metrics`.
 */
describe('run metrics (embedded)', () => {
  // One attempt: the first draft the validator refuses fails the run (the validator's run_failed).
  const embedded = useEmbeddedFlex(TOKEN, { FLEX_MAX_PLAN_ATTEMPTS: '1' });

  const scrape = async (): Promise<PromScrape> =>
    parsePrometheusText(await (await fetch(`${embedded.flex().url}/metrics`)).text());

  /** Every counter and histogram count, for before/after deltas. */
  const totals = (s: PromScrape) => ({
    started: sampleSum(s, 'flex_runs_started_total'),
    completed: sampleSum(s, 'flex_runs_completed_total'),
    failed: sampleSum(s, 'flex_runs_failed_total'),
    cancelled: sampleSum(s, 'flex_runs_cancelled_total'),
    durations: sampleSum(s, 'flex_run_duration_seconds_count'),
  });

  /** Runs a start to its end, then waits until its run duration is observed (looked up after commit). */
  const runToEnd = async (envelope: unknown, headers?: Record<string, string>) => {
    const before = await scrape();
    const result = await embedded.client().runStream(envelope, headers);
    expect(result.status).toBe(200);
    const after = await waitFor(
      async () => {
        const now = await scrape();
        return totals(now).durations > totals(before).durations && now;
      },
      10_000,
      () => 'no run duration was observed',
    );
    return { before, after, frames: result.frames, runId: result.runId ?? '' };
  };

  const delta = (before: PromScrape, after: PromScrape) => {
    const [b, a] = [totals(before), totals(after)];
    return {
      started: a.started - b.started,
      completed: a.completed - b.completed,
      failed: a.failed - b.failed,
      cancelled: a.cancelled - b.cancelled,
      durations: a.durations - b.durations,
    };
  };

  it('a run the validator fails (plan rejected): one start, one failure with its reason, the rejection by cause', async () => {
    // The caller allows a plan three nodes deep; the rule-based draft branches its variants (depth 4).
    const envelope = sample();
    envelope.policies = { planner: { topology: { maxDepth: 3 } } };
    const { before, after, frames } = await runToEnd(envelope);
    expect(types(frames)).toEqual(['start', 'plan_requested', 'plan_rejected', 'run_failed']);
    expect(delta(before, after)).toEqual({ started: 1, completed: 0, failed: 1, cancelled: 0, durations: 1 });
    const failed = (s: PromScrape) => sampleSum(s, 'flex_runs_failed_total', { reason: 'plan_rejected' });
    expect(failed(after) - failed(before)).toBe(1);
    const rejections = (s: PromScrape) =>
      sampleSum(s, 'flex_plan_rejections_total', { source: 'validator', cause: 'schema_incompatible' });
    expect(rejections(after) - rejections(before)).toBe(1);
    const failedRuns = (s: PromScrape) =>
      sampleSum(s, 'flex_run_duration_seconds_count', { outcome: 'failed' });
    expect(failedRuns(after) - failedRuns(before)).toBe(1);
  }, 60_000);

  it('a run the planner fails (no plan): counted failed once, with the planner error code as reason', async () => {
    const envelope = sample();
    envelope.policies = { planner: { selection: { forbid: ['ContentGeneratorAgent'] } } };
    const { before, after, frames } = await runToEnd(envelope);
    expect(types(frames)).toEqual(['start', 'plan_requested', 'run_failed']);
    expect(delta(before, after)).toEqual({ started: 1, completed: 0, failed: 1, cancelled: 0, durations: 1 });
    const failed = (s: PromScrape) =>
      sampleSum(s, 'flex_runs_failed_total', { reason: 'PLANNER_NO_CAPABILITIES' });
    expect(failed(after) - failed(before)).toBe(1);
    const attempts = (s: PromScrape) => sampleSum(s, 'flex_plan_attempts_total', { reason: 'initial' });
    expect(attempts(after) - attempts(before)).toBe(1);
  }, 60_000);

  it('a completed run: counted once; run duration and each node attempt by capability observed', async () => {
    const { before, after, frames, runId } = await runToEnd(sample());
    expect(types(frames).at(-1)).toBe('complete');
    expect(delta(before, after)).toEqual({ started: 1, completed: 1, failed: 0, cancelled: 0, durations: 1 });
    const completedRuns = (s: PromScrape) =>
      sampleSum(s, 'flex_run_duration_seconds_count', { outcome: 'completed' });
    expect(completedRuns(after) - completedRuns(before)).toBe(1);
    // Each agent call's outcome names its capability; orchestrator-managed nodes call no agent.
    const attempts = new Map<string, number>();
    for (const f of frames.filter((f) => f.type === 'node_complete' || f.type === 'node_error')) {
      const capability: string | undefined = f.payload.capabilityId;
      if (capability) attempts.set(capability, (attempts.get(capability) ?? 0) + 1);
    }
    expect(attempts.size).toBeGreaterThan(0);
    for (const [capability, n] of attempts) {
      const observed = (s: PromScrape) => sampleSum(s, 'flex_node_duration_seconds_count', { capability });
      expect({ capability, attempts: observed(after) - observed(before) }).toEqual({
        capability,
        attempts: n,
      });
    }
    const appends = (s: PromScrape) => sampleSum(s, 'flex_event_store_append_duration_seconds_count');
    expect(appends(after)).toBeGreaterThan(appends(before));
    // Run ids are never labels: the scrape does not grow a series per run.
    expect(after.samples.some((s) => Object.values(s.labels).some((v) => v.includes(runId)))).toBe(false);
  }, 60_000);

  it('a start sent twice with one Idempotency-Key is one run: started and completed once', async () => {
    const key = { 'Idempotency-Key': 'metrics-runs-once' };
    const { before, after, runId } = await runToEnd(sample(), key);
    const again = await embedded.client().runStream(sample(), key);
    expect(again.runId).toBe(runId);
    expect(types(again.frames).at(-1)).toBe('complete');
    expect(delta(before, await scrape())).toEqual(delta(before, after));
    expect(delta(before, after)).toEqual({ started: 1, completed: 1, failed: 0, cancelled: 0, durations: 1 });
  }, 60_000);
});
