import { defineAgent, type AgentFeedback } from '@flex/agent-sdk';
import { contentGeneratorAgent } from '@flex/agents-reference';
import type { PlanNode } from '@flex/contracts';
import type { FlexClient, Frame } from '@flex/testing';
import type { EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { envelopeWithPolicies, openRun, startFlex, startTestAgents } from './embedded-run';

const WRITER = contentGeneratorAgent.registration.capabilityId;
const NO_GUARANTEES = {
  constraintId: 'no_guarantees',
  level: 'hard',
  expr: { '!': { in: ['guaranteed', { var: 'copyVariants.0.body' }] } },
};

/** The plan's writer node, from the run's plan_generated frame. */
function writerNode(frames: Frame[]): PlanNode {
  const plan = frames.find((f) => f.type === 'plan_generated')?.payload.plan as { nodes: PlanNode[] };
  const node = plan.nodes.find((n) => n.capabilityId === WRITER);
  if (!node) throw new Error('the plan has no writer node');
  return node;
}

const ofNode = (frames: Frame[], nodeId: string, type: string) =>
  frames.filter((f) => f.type === type && f.nodeId === nodeId);

/**
 * Repair with feedback through the public API (embedded mode, real HTTP and SSE): a copy that breaks
 * the caller's contract on the first attempt is refused with errors that name what is wrong, the
 * retry is handed those errors, and the run completes with the repaired copy.
 */
describe('executor: repairing what breaks the contract, with feedback', () => {
  let flex: EmbeddedFlex;
  let client: FlexClient;
  let stopAgents: (() => Promise<void>) | undefined;
  const feedbackSeen: Array<AgentFeedback | undefined> = [];
  let promisesGuarantees = true;

  beforeAll(async () => {
    ({ flex, client } = await startFlex({ FLEX_NODE_MAX_ATTEMPTS: '3' }));
    // The reference copywriter, except that until it is told what is wrong, it promises a guarantee.
    const careless = defineAgent({
      registration: contentGeneratorAgent.registration,
      handle: async (invocation, ctx) => {
        feedbackSeen.push(invocation.feedback);
        const out = (await contentGeneratorAgent.handle(invocation, ctx)) as {
          copyVariants: Array<{ body: string }>;
        };
        const fixed = invocation.feedback?.errors.some((e) => e.path === '/constraints/no_guarantees');
        if (fixed || !promisesGuarantees) return out;
        return {
          copyVariants: out.copyVariants.map((v, i) =>
            i === 0 ? { ...v, body: `Success guaranteed. ${v.body}` } : v,
          ),
        };
      },
    });
    stopAgents = await startTestAgents(flex, [careless]);
  }, 60_000);

  afterAll(async () => {
    await stopAgents?.();
    await flex?.close();
  });

  it('a copy breaking a hard constraint on the first attempt: validation_error naming /constraints/no_guarantees, the retry gets the errors, the run completes', async () => {
    feedbackSeen.length = 0;
    promisesGuarantees = true;
    const envelope = envelopeWithPolicies([]);
    envelope.outputContract = { ...envelope.outputContract, constraints: [NO_GUARANTEES] };
    const run = await openRun(client, envelope);
    const frames = await run.frames;
    const last = frames[frames.length - 1];
    expect(last.type).toBe('complete');
    const writer = writerNode(frames);
    // Where the constraint is caught is the plan's choice: at the writer when it lists it in
    // `enforces` (its own output check), else when the final output is composed (blamed on the writer).
    const scope = (writer.enforces ?? []).includes('no_guarantees') ? 'capability_output' : 'final_output';
    const refused = ofNode(frames, writer.id, 'validation_error');
    expect(refused).toHaveLength(1);
    expect(refused[0].payload).toMatchObject({
      scope,
      attempt: 1,
      errors: [{ path: '/constraints/no_guarantees', keyword: 'constraint' }],
    });
    expect(
      ofNode(frames, writer.id, 'node_error').map((f) => [f.payload.attempt, f.payload.willRetry]),
    ).toEqual([[1, true]]);
    expect(ofNode(frames, writer.id, 'node_start').map((f) => f.payload.attempt)).toEqual([1, 2]);
    expect(ofNode(frames, writer.id, 'node_complete').map((f) => f.payload.attempt)).toEqual(
      scope === 'final_output' ? [1, 2] : [2],
    );
    expect(feedbackSeen).toEqual([
      undefined,
      {
        attempt: 1,
        errors: [expect.objectContaining({ path: '/constraints/no_guarantees', keyword: 'constraint' })],
      },
    ]);
    expect(JSON.stringify(last.payload.output)).not.toContain('guaranteed');
    expect(last.payload.output.copyVariants).toHaveLength(2);
  }, 60_000);

  it('a copy breaking the caller schema (a body too long): the reference copywriter meets the bound, from its contract or from the feedback', async () => {
    feedbackSeen.length = 0;
    promisesGuarantees = false;
    const envelope = envelopeWithPolicies([]);
    const items = envelope.outputContract.schema.properties.copyVariants.items;
    items.properties.body = { type: 'string', maxLength: 60 };
    const run = await openRun(client, envelope);
    const frames = await run.frames;
    const last = frames[frames.length - 1];
    expect(last.type).toBe('complete');
    const writer = writerNode(frames);
    for (const v of last.payload.output.copyVariants)
      expect(Array.from(v.body as string).length).toBeLessThanOrEqual(60);
    if (writer.bindings?.outputs?.copyVariants) {
      // The plan pushed the bound into the writer's contract: it is met on the first attempt.
      expect(ofNode(frames, writer.id, 'validation_error')).toEqual([]);
      return;
    }
    // No binding carries it: the composed output is refused, blamed on the writer, and repaired.
    const refused = ofNode(frames, writer.id, 'validation_error');
    expect(refused.map((f) => f.payload.scope)).toEqual(['final_output']);
    expect(refused[0].payload.errors[0]).toMatchObject({
      path: expect.stringMatching(/^\/copyVariants\/\d+\/body$/),
      keyword: 'maxLength',
    });
    expect(ofNode(frames, writer.id, 'node_error')[0].payload).toMatchObject({
      attempt: 1,
      willRetry: true,
      error: { code: 'output_invalid' },
    });
    expect(feedbackSeen[1]).toMatchObject({ attempt: 1, errors: [{ keyword: 'maxLength' }] });
  }, 60_000);
});
