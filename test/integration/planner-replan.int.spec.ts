import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeEnvelope } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { loadConfig } from '@flex/runtime';
import { FlexClient, waitFor } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';

const TOKEN = 'planner-replan-client';

/** Replans through the whole embedded stack: completed work survives, and replans are bounded. */
describe('planner: replan (embedded, reference agents)', () => {
  let flex: EmbeddedFlex;
  const sample = () => JSON.parse(readFileSync(join(__dirname, '../../examples/envelope.json'), 'utf8'));
  const events = (runId: string): Promise<StoredEvent[]> => flex.runtime.store.readStream(`run-${runId}`);

  beforeAll(async () => {
    flex = await startEmbedded({
      config: loadConfig({
        FLEX_API_TOKENS: `${TOKEN}:client`,
        FLEX_LOG_LEVEL: 'silent',
        PORT: '0',
        FLEX_MAX_REPLANS: '1',
      }),
      dataDir: null,
    });
  }, 90_000);
  afterAll(() => flex?.close());

  it('answers a policy replan with a new version that keeps completed nodes, and the run continues from plan_updated', async () => {
    const envelope = sample();
    const policy = {
      id: 'rethink',
      trigger: {
        kind: 'onNodeComplete',
        selector: { kind: 'execution' },
        condition: { '>=': [{ var: 'copyVariants.length' }, 2] },
      },
      action: { type: 'replan' },
    };
    envelope.policies = { ...envelope.policies, runtime: [policy] };
    const result = await new FlexClient(flex.url, TOKEN).runStream(envelope);
    const types = result.frames.map((f) => f.type);
    expect(types[types.length - 1]).toBe('complete');
    const request = result.frames.find((f) => f.type === 'plan_requested' && f.payload.reason === 'replan');
    expect(request?.payload.replan).toMatchObject({
      previousVersion: 1,
      completedNodeIds: expect.arrayContaining(['structuring-1', 'execution-1']),
    });
    const generated = result.frames.find((f) => f.type === 'plan_generated')!.payload;
    const updated = result.frames.find((f) => f.type === 'plan_updated')!.payload;
    expect(updated).toMatchObject({ previousVersion: 1, version: 2, trigger: { policyId: 'rethink' } });
    expect(updated.plan.metadata).toMatchObject({ plannerId: 'rule-based', planVersionTag: 'v2' });
    for (const id of request!.payload.replan.completedNodeIds) {
      expect(updated.plan.nodes.find((n: any) => n.id === id)).toEqual(
        generated.plan.nodes.find((n: any) => n.id === id),
      );
    }
    const after = types.slice(types.indexOf('plan_updated'));
    expect(after.filter((t) => t === 'node_start')).toEqual([]);
    expect(result.frames[result.frames.length - 1].payload.output.copyVariants).toHaveLength(2);
  }, 90_000);

  it('fails the run with replan_limit when a replan request exceeds FLEX_MAX_REPLANS', async () => {
    const normalized = normalizeEnvelope(sample());
    if (!normalized.ok) throw new Error('sample envelope');
    const runId = 'replan-limit-1';
    const metadata = { correlationId: 'corr-replan-limit' };
    const replan = (n: number) => ({
      id: randomUUID(),
      type: 'plan_requested',
      payload: {
        attempt: n,
        reason: 'replan',
        policyKeys: [],
        replan: { trigger: { kind: 'manual' }, previousVersion: 1, completedNodeIds: [] },
      },
      metadata,
    });
    await flex.runtime.store.append(
      `run-${runId}`,
      [
        {
          id: randomUUID(),
          type: 'start',
          payload: {
            runId,
            envelope: normalized.envelope,
            normalization: [],
            owner: { principal: 'test', role: 'client' },
          },
          metadata,
        },
        replan(1),
        replan(2),
      ],
      { expectedVersion: 'no_stream' },
    );
    const failed = await waitFor(
      async () => (await events(runId)).find((e) => e.type === 'run_failed'),
      20_000,
      () => `no run_failed on ${runId}`,
    );
    expect(failed.payload).toMatchObject({
      code: 'replan_limit',
      reason: expect.stringContaining('at most 1 time(s)'),
    });
    expect((await events(runId)).map((e) => e.type)).not.toContain('plan_drafted');
  }, 30_000);
});
