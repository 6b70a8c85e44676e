import { startReferenceAgents, type ReferenceAgents } from '@flex/agents-reference';
import { loadConfig } from '@flex/runtime';
import {
  FlexClient,
  startOpenAiServer,
  type Frame,
  type OpenAiServer,
  type RecordedRequest,
  type ScriptedReply,
} from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../apps/flex/src/embedded/embedded';
import { llmAnswer } from '../services/planner/src/llm/llm-answers.fixture';
import { sampleEnvelope } from './sample-run';

const TOKEN = 'client-token-plan-revision';

/**
 * The revise loop end to end: the LLM planner's first draft lacks the QA node the policy requires,
 * the validator rejects it, the planner asks the LLM again with the diagnostics in the prompt, and
 * the second draft is accepted and runs to `complete` with the reference agents.
 */
describe('plan revision (embedded, LLM planner against a local chat-completions server)', () => {
  let llm: OpenAiServer;
  let flex: EmbeddedFlex;
  let agents: ReferenceAgents;
  const plannerRequests = () =>
    llm.requests.filter((r) => r.body.response_format?.json_schema?.name === 'flex_plan');

  beforeAll(async () => {
    llm = await startOpenAiServer();
    // The model "learns": it adds QA only once the prompt carries the validator's diagnostics.
    llm.setFallback((req: RecordedRequest): ScriptedReply => ({
      kind: 'json',
      content: llmAnswer({ qa: promptOf(req).includes('Previous attempt rejected') }),
    }));
    const config = loadConfig({
      FLEX_API_TOKENS: `${TOKEN}:client`,
      FLEX_LOG_LEVEL: 'silent',
      PORT: '0',
      FLEX_PLANNER: 'llm',
      FLEX_LLM_BASE_URL: llm.baseUrl,
      FLEX_LLM_API_KEY: 'sk-local',
      FLEX_LLM_MODEL: 'local-planner',
    });
    // The reference agents run deterministic (no FLEX_LLM_*), so the local model serves the planner only.
    flex = await startEmbedded({ config, dataDir: null, agents: false });
    agents = await startReferenceAgents({ messaging: flex.runtime.messaging, prefix: flex.runtime.prefix });
    await agents.ready;
  }, 90_000);

  afterAll(async () => {
    await agents?.stop();
    await flex?.close();
    await llm?.close();
  });

  it('streams plan_requested → plan_rejected → plan_requested → plan_generated and ends in complete', async () => {
    const envelope = sampleEnvelope();
    envelope.policies = { planner: { topology: { requiredKinds: ['validation'] } } };
    envelope.inputs.toneOfVoice = 'inspiring';
    const result = await new FlexClient(flex.url, TOKEN).runStream(envelope);
    expect(result.status).toBe(200);
    const types = result.frames.map((f) => f.type);
    expect(types.filter((t) => t.startsWith('plan_'))).toEqual([
      'plan_requested',
      'plan_rejected',
      'plan_requested',
      'plan_generated',
    ]);
    expect(types[types.length - 1]).toBe('complete');
    expect(types.filter((t) => t === 'complete' || t === 'run_failed')).toHaveLength(1);

    const rejected = frame(result.frames, 'plan_rejected');
    const failure = rejected.payload.diagnostics.failures.find(
      (d: any) => d.cause !== undefined && /validation/.test(`${d.constraint} ${d.suggestion}`),
    );
    expect(failure).toBeDefined();
    const retry = result.frames.filter((f) => f.type === 'plan_requested')[1];
    expect(retry.payload).toMatchObject({
      attempt: 2,
      reason: 'rejected',
      diagnostics: { status: 'rejected' },
    });

    expect(llm.requests).toHaveLength(2);
    expect(plannerRequests()).toHaveLength(2);
    const retryPrompt = promptOf(llm.requests[1]);
    expect(retryPrompt).toContain(`constraintId: ${failure.constraintId}; cause: ${failure.cause}`);
    expect(retryPrompt).toContain(`suggestion: ${failure.suggestion}`);
    expect(promptOf(llm.requests[0])).not.toContain('Previous attempt rejected');

    const generated = frame(result.frames, 'plan_generated').payload;
    expect(generated.metadata).toMatchObject({
      plannerId: 'llm',
      plannerVersion: '1.0.0',
      determinism: 'structural',
      inputHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(generated.planHash).toMatch(/^[0-9a-f]{64}$/);
    expect(generated.plan.metadata).toMatchObject({
      model: 'local-planner',
      tokens: { input: 100, output: 50 },
    });
    expect(generated.nodes.map((n: any) => n.kind)).toEqual([
      'structuring',
      'execution',
      'validation',
      'fallback',
    ]);
    const qa = result.frames.find((f) => f.type === 'node_complete' && f.nodeId === 'qa');
    expect(qa?.payload.output.qaFindings).toBeDefined();
    expect(frame(result.frames, 'complete').payload.output.copyVariants).toHaveLength(2);
  }, 90_000);
});

function frame(frames: Frame[], type: string): Frame {
  const found = frames.find((f) => f.type === type);
  if (!found) throw new Error(`no ${type} frame in ${frames.map((f) => f.type).join(', ')}`);
  return found;
}

function promptOf(req: RecordedRequest): string {
  return (req.body.messages as Array<{ content: string }>).map((m) => m.content).join('\n');
}
