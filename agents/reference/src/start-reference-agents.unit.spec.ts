import { agentInvokeSubject, InProcessMessaging, registrySubjects, type Messaging } from '@flex/bus';
import type { AgentInvocation, AgentResult } from '@flex/agent-sdk';
import { recruitingContext, recruitingInputs } from './test-support/recruiting-brief';
import { referenceAgents, startReferenceAgents } from './start-reference-agents';

const prefix = 'ref_unit';
const quiet = { warn: () => undefined, error: () => undefined };

async function tinyRegistry(messaging: Messaging) {
  const registered: string[] = [];
  const deregistered: string[] = [];
  const subjects = registrySubjects(prefix);
  await messaging.serve(subjects.registerAll, {}, async (req) => {
    const { registration, instanceId } = req.data as {
      registration: { capabilityId: string };
      instanceId: string;
    };
    registered.push(registration.capabilityId);
    return { ok: true, capabilityId: registration.capabilityId, instanceId, status: 'active' };
  });
  await messaging.serve(
    subjects.deregisterAll,
    {},
    async (req) => void deregistered.push((req.data as { capabilityId: string }).capabilityId),
  );
  return { registered, deregistered };
}

function invoke(
  messaging: Messaging,
  capabilityId: string,
  nodeId: string,
  inputs: Record<string, unknown>,
  outputFacets: string[],
) {
  const invocation: AgentInvocation = {
    runId: 'run-ref',
    nodeId,
    attempt: 1,
    idempotencyKey: `run-ref:${nodeId}:1`,
    capabilityId,
    inputs,
    outputFacets,
    context: recruitingContext,
  };
  return messaging.request<AgentResult>(agentInvokeSubject(prefix, capabilityId), invocation, {
    timeoutMs: 5_000,
  });
}

describe('reference agents over the agent SDK', () => {
  let messaging: InProcessMessaging;
  beforeEach(() => (messaging = new InProcessMessaging({ logger: quiet })));
  afterEach(() => messaging.drain());

  it('are the three capabilities of the current inventory', () => {
    expect(
      referenceAgents.map((a) => [
        a.registration.capabilityId,
        a.registration.inputContract,
        a.registration.outputContract,
      ]),
    ).toEqual([
      [
        'StrategyManagerAgent.briefing',
        ['objectiveBrief', 'audienceProfile', 'toneOfVoice', 'assetBundle'],
        ['writerBrief', 'planKnobs', 'strategicRationale'],
      ],
      [
        'ContentGeneratorAgent.linkedinVariants',
        ['writerBrief', 'planKnobs', 'toneOfVoice', 'audienceProfile'],
        ['copyVariants'],
      ],
      [
        'QualityAssuranceAgent.contentReview',
        ['copyVariants', 'writerBrief', 'qaRubric'],
        ['qaFindings', 'recommendationSet'],
      ],
    ]);
  });

  it('register, then run strategy → copy → QA as an executor would invoke them, and deregister on stop', async () => {
    const registry = await tinyRegistry(messaging);
    const agents = await startReferenceAgents({ messaging, prefix });
    await agents.ready;
    expect(registry.registered.sort()).toEqual(
      referenceAgents.map((a) => a.registration.capabilityId).sort(),
    );

    const strategy = await invoke(
      messaging,
      'StrategyManagerAgent.briefing',
      'strategy',
      { ...recruitingInputs },
      ['writerBrief', 'planKnobs', 'strategicRationale'],
    );
    const { writerBrief, planKnobs } = strategy.output as { writerBrief: unknown; planKnobs: unknown };
    expect(strategy.usage).toEqual({ tokens: 0, costCents: 0, model: 'deterministic' });

    const copy = await invoke(
      messaging,
      'ContentGeneratorAgent.linkedinVariants',
      'write',
      { writerBrief, planKnobs, toneOfVoice: 'friendly', audienceProfile: recruitingInputs.audienceProfile },
      ['copyVariants'],
    );
    const copyVariants = copy.output.copyVariants as Array<{ headline: string }>;
    expect(copyVariants.map((v) => v.headline.toLowerCase())).toEqual([
      expect.stringContaining('team culture'),
      expect.stringContaining('career growth'),
    ]);

    const qa = await invoke(
      messaging,
      'QualityAssuranceAgent.contentReview',
      'review',
      {
        copyVariants,
        writerBrief,
        qaRubric: {
          checks: ['readability', 'clarity', 'objective_fit', 'policy_risk'],
          thresholds: { overall: 0.7 },
        },
      },
      ['qaFindings'],
    );
    expect(Object.keys(qa.output)).toEqual(['qaFindings']);
    expect(qa.output.qaFindings).toMatchObject({ overallStatus: 'pass' });

    await agents.stop('test_end');
    expect(registry.deregistered.sort()).toEqual(registry.registered.sort());
  });

  it('starts only the agents asked for and refuses unknown ones', async () => {
    const registry = await tinyRegistry(messaging);
    const agents = await startReferenceAgents({
      messaging,
      prefix,
      only: ['QualityAssuranceAgent.contentReview'],
    });
    await agents.ready;
    expect(registry.registered).toEqual(['QualityAssuranceAgent.contentReview']);
    await agents.stop();
    await expect(startReferenceAgents({ messaging, prefix, only: ['Nope.agent'] })).rejects.toThrow(
      /unknown reference agent/,
    );
  });
});
