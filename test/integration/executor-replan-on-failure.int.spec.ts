import { defineAgent } from '@flex/agent-sdk';
import { contentGeneratorAgent } from '@flex/agents-reference';
import type { FlexClient } from '@flex/testing';
import type { EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { envelopeWithPolicies, openRun, startFlex, startTestAgents } from './embedded-run';

const WRITER = contentGeneratorAgent.registration.capabilityId;
const DIRECT = 'ZZ.directWriter';

/**
 * A node that fails for good with no drop-in fallback (the only other writer needs different
 * inputs): the executor asks for a replan from the failure, the planner routes around the failed
 * capability, the run continues on plan v2 and completes — before any human is asked.
 */
describe('executor: replan from a failure', () => {
  let flex: EmbeddedFlex;
  let client: FlexClient;
  let stopAgents: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ flex, client } = await startFlex({ FLEX_NODE_MAX_ATTEMPTS: '1' }));
    const broken = defineAgent({
      registration: contentGeneratorAgent.registration,
      handle: async () => {
        throw Object.assign(new Error('writer backend is down'), { code: 'writer_down', retryable: true });
      },
    });
    const direct = defineAgent({
      registration: {
        ...contentGeneratorAgent.registration,
        capabilityId: DIRECT,
        displayName: 'Direct writer',
        inputContract: ['objectiveBrief'],
      },
      handle: async (invocation) => {
        const objective = String(
          (invocation.inputs.objectiveBrief as { objective?: string } | undefined)?.objective ?? 'our news',
        );
        return {
          copyVariants: [1, 2].map((n) => ({
            headline: `Take ${n}: ${objective}`.slice(0, 120),
            body: `Variant ${n} of a post about ${objective}, written straight from the brief.`,
            callToAction: n === 1 ? 'Learn more' : 'Join us',
          })),
        };
      },
    });
    stopAgents = await startTestAgents(flex, [broken, direct]);
  }, 60_000);

  afterAll(async () => {
    await stopAgents?.();
    await flex?.close();
  });

  it('replans around the failed capability and completes on the new plan version', async () => {
    const envelope = envelopeWithPolicies([]);
    envelope.policies = { planner: { selection: { prefer: ['ContentGeneratorAgent'] } } };
    const run = await openRun(client, envelope);
    const frames = await run.frames;
    const types = frames.map((f) => f.type);
    expect(types[types.length - 1]).toBe('complete');
    const failed = frames.find((f) => f.type === 'node_error' && f.payload?.capabilityId === WRITER);
    expect(failed?.payload).toMatchObject({ willRetry: false });
    const replan = frames.find((f) => f.type === 'plan_requested' && f.payload?.reason === 'replan');
    expect(replan?.payload.replan).toMatchObject({
      trigger: { kind: 'node_failed', capabilityId: WRITER },
      previousVersion: 1,
    });
    const updated = frames.find((f) => f.type === 'plan_updated');
    expect(updated?.payload).toMatchObject({ previousVersion: 1, version: 2 });
    expect(updated?.payload.plan.nodes.map((n: { capabilityId?: string }) => n.capabilityId)).not.toContain(
      WRITER,
    );
    expect(frames.some((f) => f.type === 'node_start' && f.payload?.capabilityId === DIRECT)).toBe(true);
    expect(types).not.toContain('hitl_request');
    const strategyRuns = frames.filter(
      (f) => f.type === 'node_complete' && f.payload?.capabilityId === 'StrategyManagerAgent.briefing',
    );
    expect(strategyRuns.length).toBeLessThanOrEqual(1);
    expect(frames[frames.length - 1].payload.output.copyVariants).toHaveLength(2);
  }, 60_000);
});
