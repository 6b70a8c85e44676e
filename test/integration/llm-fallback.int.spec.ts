import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startReferenceAgents, type ReferenceAgents } from '@flex/agents-reference';
import { PlanGeneratedPayloadSchema, PlanRequestedPayloadSchema } from '@flex/contracts';
import { loadConfig } from '@flex/runtime';
import { FlexClient, startOpenAiServer, type OpenAiServer } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { llmAnswer } from '../../services/planner/src/llm/llm-answers.fixture';

const TOKEN = 'llm-fallback-client';
const sample = () => JSON.parse(readFileSync(join(__dirname, '../../examples/envelope.json'), 'utf8'));

/**
 * An LLM that never learns: every draft lacks the QA node the caller requires, so the validator
 * rejects it up to FLEX_MAX_PLAN_ATTEMPTS. The run does not fail there: the validator asks the
 * rule-based planner for one more draft, says so on the stream, and that draft runs to complete.
 */
describe('LLM planner: fallback to the rule-based draft once the LLM drafts are used up (embedded)', () => {
  let llm: OpenAiServer;
  let flex: EmbeddedFlex;
  let agents: ReferenceAgents;

  beforeAll(async () => {
    llm = await startOpenAiServer();
    llm.setFallback(() => ({ kind: 'json', content: llmAnswer() }));
    const env = {
      FLEX_API_TOKENS: `${TOKEN}:client`,
      FLEX_LOG_LEVEL: 'silent',
      PORT: '0',
      FLEX_MAX_PLAN_ATTEMPTS: '2',
    };
    const config = loadConfig({
      ...env,
      FLEX_PLANNER: 'llm',
      FLEX_LLM_BASE_URL: llm.baseUrl,
      FLEX_LLM_MODEL: 'stubborn',
    });
    // The reference agents stay deterministic: the local model serves the planner only.
    flex = await startEmbedded({ config, dataDir: null, agents: false });
    agents = await startReferenceAgents({ messaging: flex.runtime.messaging, prefix: flex.runtime.prefix });
    await agents.ready;
  }, 90_000);

  afterAll(async () => {
    await agents?.stop();
    await flex?.close();
    await llm?.close();
  });

  it('streams two rejected LLM drafts, a plan_requested naming the rule-based fallback, and a rule-based plan', async () => {
    const envelope = sample();
    envelope.policies = { planner: { topology: { requiredKinds: ['validation'] } } };
    const result = await new FlexClient(flex.url, TOKEN).runStream(envelope);
    const types = result.frames.map((f) => f.type);
    expect(types.filter((t) => t.startsWith('plan_'))).toEqual([
      'plan_requested',
      'plan_rejected',
      'plan_requested',
      'plan_rejected',
      'plan_requested',
      'plan_generated',
    ]);
    const rejections = result.frames
      .filter((f) => f.type === 'plan_rejected')
      .map((f) => f.payload.metadata.plannerId);
    expect(rejections).toEqual(['llm', 'llm']);
    const requests = result.frames
      .filter((f) => f.type === 'plan_requested')
      .map((f) => PlanRequestedPayloadSchema.parse(f.payload));
    expect(requests.map((r) => r.fallback)).toEqual([
      undefined,
      undefined,
      expect.objectContaining({ planner: 'rule-based', from: 'llm', reason: 'drafts_rejected' }),
    ]);
    expect(requests[2]).toMatchObject({
      attempt: 3,
      reason: 'rejected',
      diagnostics: { status: 'rejected' },
    });
    expect(result.frames.find((f) => f.type === 'plan_requested' && f.payload.fallback)?.message).toMatch(
      /rule-based fallback: the llm planner's drafts were rejected 2 time\(s\)/,
    );
    const generated = PlanGeneratedPayloadSchema.parse(
      result.frames.find((f) => f.type === 'plan_generated')?.payload,
    );
    expect(generated.metadata).toMatchObject({
      plannerId: 'rule-based',
      fallbackReason: expect.stringMatching(/^drafts_rejected: /),
    });
    expect(generated.nodes.map((n) => n.kind)).toContain('validation');
    expect(llm.requests).toHaveLength(2);
    expect(types.at(-1)).toBe('complete');
  }, 90_000);
});
