import { defineAgent, startAgent } from '@flex/agent-sdk';
import { contentGeneratorAgent, startReferenceAgents } from '@flex/agents-reference';
import type { EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';

/** Put this in an objective and the reference writer fails for good on it (see {@link flakyWriter}). */
export const WRITER_DOWN = 'the writer is down';

/**
 * The reference copywriter, except that it fails for good on a brief that says
 * {@link WRITER_DOWN}: with FLEX_NODE_MAX_ATTEMPTS=1 the executor then asks for a replan, and the
 * planner routes around it (to {@link directWriter}): a plan v2 that differs from v1.
 */
const flakyWriter = defineAgent({
  registration: contentGeneratorAgent.registration,
  handle: async (invocation, context) => {
    if (JSON.stringify(invocation.inputs).includes(WRITER_DOWN))
      throw Object.assign(new Error('writer backend is down'), { code: 'writer_down', retryable: true });
    return contentGeneratorAgent.handle(invocation, context);
  },
});

/** A second writer that works from the objective alone (other inputs, so not a drop-in fallback). */
const directWriter = defineAgent({
  registration: {
    ...contentGeneratorAgent.registration,
    capabilityId: 'ZZ.directWriter',
    displayName: 'Direct writer',
    inputContract: ['objectiveBrief'],
  },
  handle: async (invocation) => {
    const brief = invocation.inputs.objectiveBrief as { objective?: string } | undefined;
    const objective = String(brief?.objective ?? 'our news');
    return {
      copyVariants: [1, 2].map((n) => ({
        headline: `Take ${n}: ${objective}`.slice(0, 120),
        body: `Variant ${n} of a post about ${objective}, written straight from the brief.`,
        callToAction: n === 1 ? 'Learn more' : 'Join us',
      })),
    };
  },
});

/**
 * The reference strategy and QA agents, the flaky writer in the reference writer's place, and the
 * direct writer, on the embedded system's messaging; resolves once all are registered.
 */
export async function startDemoAgents(flex: EmbeddedFlex): Promise<() => Promise<void>> {
  const opts = { messaging: flex.runtime.messaging, prefix: flex.runtime.prefix };
  const reference = await startReferenceAgents({
    ...opts,
    only: ['StrategyManagerAgent.briefing', 'QualityAssuranceAgent.contentReview'],
  });
  const writers = [await startAgent(flakyWriter, opts), await startAgent(directWriter, opts)];
  await Promise.all([reference.ready, ...writers.map((w) => w.ready)]);
  return async () => {
    await Promise.all(writers.map((w) => w.stop()));
    await reference.stop();
  };
}
