import { planGraphToSteps, PlanGraphSchema, type DiagnosticsBundle } from '@flex/contracts';
import { startOpenAiServer, type OpenAiServer } from '@flex/testing';
import { isPlannerError } from '../plan/planner';
import { planOf, request, sampleEnvelope, threeVariantsWithQa } from '../plan/test.fixture';
import { planRuleBased } from '../plan/rule-based.planner';
import { llmAnswer } from './llm-answers.fixture';
import { LlmPlanner } from './llm.planner';

/** Every LLM path against a real local HTTP server speaking chat completions (no mocked client). */
describe('LLM planner', () => {
  let server: OpenAiServer;
  let planner: LlmPlanner;

  beforeEach(async () => {
    server = await startOpenAiServer();
    planner = new LlmPlanner({
      baseUrl: server.baseUrl,
      apiKey: 'sk-test',
      model: 'test-model',
      timeoutMs: 2_000,
      maxBackoffMs: 200,
    });
  });
  afterEach(() => server.close());

  it('compiles a valid answer into a structural plan with model, tokens and cost', async () => {
    server.enqueue({
      kind: 'json',
      content: llmAnswer(),
      usage: { prompt_tokens: 1200, completion_tokens: 300 },
    });
    const env = sampleEnvelope(
      (raw) => (raw.policies = { planner: { directives: { tone: 'warm but factual' } } }),
    );
    const result = await planner.plan(request(env));
    const plan = planOf(result);
    expect(PlanGraphSchema.parse(plan)).toEqual(plan);
    expect(result).toMatchObject({ deterministic: false, metadata: { model: 'test-model', answers: 1 } });
    expect(plan.nodes.map((n) => [n.id, n.kind, n.capabilityId ?? null])).toEqual([
      ['strategy', 'structuring', 'StrategyManagerAgent.briefing'],
      ['writer', 'execution', 'ContentGeneratorAgent.linkedinVariants'],
      ['fallback-1', 'fallback', null],
    ]);
    expect(plan.edges).toEqual([
      { from: 'strategy', to: 'writer' },
      { from: 'writer', to: 'fallback-1' },
    ]);
    expect(plan.nodes[0].instructions).toBe('Write the brief.');
    expect(plan.nodes[1].instructions).toMatch(/copyVariants/);
    expect(plan.nodes[1].outputSchema).toMatchObject({ required: ['copyVariants'] });
    expect(plan.metadata).toMatchObject({
      plannerId: 'llm',
      determinism: 'structural',
      model: 'test-model',
      tokens: { input: 1200, output: 300 },
      costCents: 4.5,
      branchCount: 0,
    });
    expect(plan.metadata.inputHash).toMatch(/^[0-9a-f]{64}$/);
    const [req] = server.requests;
    expect(req.headers.authorization).toBe('Bearer sk-test');
    expect(req.body).toMatchObject({
      model: 'test-model',
      temperature: 0,
      response_format: { type: 'json_schema', json_schema: { name: 'flex_plan', strict: true } },
    });
    const prompt = req.body.messages.map((m: { content: string }) => m.content).join('\n');
    for (const part of [
      'Create LinkedIn post variants promoting AwesomePoster',
      '"minItems": 2',
      'ContentGeneratorAgent.linkedinVariants',
      'warm but factual',
      '## Constraints',
      '## Planner policies',
    ]) {
      expect(prompt).toContain(part);
    }
  });

  it('asks again when the answer is an invalid plan, and uses the valid second one', async () => {
    const invalid = llmAnswer();
    invalid.nodes[1].capabilityId = 'Ghost.writer';
    invalid.nodes[1].dependsOn = ['nowhere'];
    server.enqueue({ kind: 'json', content: invalid }, { kind: 'json', content: llmAnswer() });
    const result = await planner.plan(request(sampleEnvelope()));
    expect(planOf(result).metadata).toMatchObject({ plannerId: 'llm', tokens: { input: 200, output: 100 } });
    expect(result).toMatchObject({ metadata: { answers: 2 } });
    expect(server.requests).toHaveLength(2);
    const repair = server.requests[1].body.messages.at(-1).content;
    expect(repair).toContain('capability Ghost.writer is not registered and active');
    expect(repair).toContain('depends on unknown node nowhere');
  });

  it('falls back to the rule-based draft on garbage, and says so', async () => {
    server.setFallback(() => ({ kind: 'text', content: 'Sure! Here is your plan: step 1, write stuff.' }));
    const result = await planner.plan(request(sampleEnvelope()));
    const plan = planOf(result);
    const ruleBased = planOf(planRuleBased(request(sampleEnvelope())));
    expect(plan.nodes).toEqual(ruleBased.nodes);
    expect(plan.metadata).toMatchObject({
      plannerId: 'rule-based',
      fallbackReason: expect.stringMatching(
        /^PLANNER_MALFORMED_OUTPUT: unusable LLM answer: the answer is not JSON/,
      ),
      model: 'test-model',
    });
    expect(result).toMatchObject({
      metadata: { plannerError: { code: 'PLANNER_MALFORMED_OUTPUT', retryable: true } },
    });
    expect(server.requests).toHaveLength(2);
  });

  it('waits as Retry-After says on a 429 and then uses the answer', async () => {
    server.enqueue(
      { kind: 'status', status: 429, headers: { 'retry-after': '0' } },
      { kind: 'json', content: llmAnswer() },
    );
    const plan = planOf(await planner.plan(request(sampleEnvelope())));
    expect(plan.metadata.plannerId).toBe('llm');
    expect(server.requests).toHaveLength(2);
  });

  it('falls back with PLANNER_RATE_LIMITED when 429s outlast the bounded backoff', async () => {
    server.setFallback(() => ({ kind: 'status', status: 429, headers: { 'retry-after': '3600' } }));
    const started = Date.now();
    const result = await planner.plan(request(sampleEnvelope()));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(planOf(result).metadata).toMatchObject({
      plannerId: 'rule-based',
      fallbackReason: expect.stringContaining('PLANNER_RATE_LIMITED'),
    });
    expect(result).toMatchObject({
      metadata: { plannerError: { code: 'PLANNER_RATE_LIMITED', retryable: true } },
    });
    expect(server.requests).toHaveLength(3);
  });

  it('falls back with PLANNER_TIMEOUT when the model does not answer in time', async () => {
    server.enqueue({ kind: 'hang' });
    const quick = new LlmPlanner({ baseUrl: server.baseUrl, model: 'test-model', timeoutMs: 300 });
    const result = await quick.plan(request(sampleEnvelope()));
    expect(planOf(result).metadata).toMatchObject({
      plannerId: 'rule-based',
      fallbackReason: 'PLANNER_TIMEOUT: no answer within 300 ms',
    });
  });

  it('returns a structured error for a required capability that is not registered, and never calls the LLM', async () => {
    const env = sampleEnvelope(
      (raw) => (raw.policies = { planner: { selection: { require: ['Ghost.agent'] } } }),
    );
    const result = await planner.plan(request(env));
    expect(isPlannerError(result) && result).toMatchObject({
      code: 'PLANNER_NO_CAPABILITIES',
      retryable: false,
      details: { required: 'Ghost.agent' },
    });
    expect(server.requests).toHaveLength(0);
  });

  it('is structurally deterministic: same inputs, same steps and dependencies, wording may vary', async () => {
    server.enqueue(
      { kind: 'json', content: llmAnswer({ qa: true, wording: 'Write the brief.' }) },
      { kind: 'json', content: llmAnswer({ qa: true, wording: 'Draft a crisp brief first.' }) },
    );
    const env = threeVariantsWithQa();
    const a = planOf(await planner.plan(request(env)));
    const b = planOf(await planner.plan(request(env)));
    const structure = (p: typeof a) =>
      planGraphToSteps(p).steps.map((s) => [s.step_id, s.skill, s.depends_on]);
    expect(structure(b)).toEqual(structure(a));
    expect(b.metadata.inputHash).toBe(a.metadata.inputHash);
    expect(b.nodes[0].instructions).not.toBe(a.nodes[0].instructions);
    expect(a.nodes.find((n) => n.id === 'qa')?.enforces).toEqual(['qa_pass']);
  });

  it('puts the previous diagnostics in the retry prompt by constraintId, cause and suggestion', async () => {
    server.enqueue({ kind: 'json', content: llmAnswer({ qa: true }) });
    const diagnostics: DiagnosticsBundle = {
      status: 'rejected',
      satisfactionScore: 0,
      failures: [
        {
          severity: 'hard',
          status: 'unsatisfied',
          cause: 'missing_enforcer',
          constraintId: 'qa_pass',
          suggestion: 'Add QualityAssuranceAgent.contentReview after the writer.',
        },
      ],
      warnings: [],
      infos: [],
    };
    const plan = planOf(await planner.plan(request(threeVariantsWithQa(), { attempt: 2, diagnostics })));
    expect(plan.nodes.some((n) => n.kind === 'validation')).toBe(true);
    const prompt = server.requests[0].body.messages[1].content;
    expect(prompt).toContain('Previous attempt rejected');
    expect(prompt).toContain(
      'constraintId: qa_pass; cause: missing_enforcer; severity: hard; suggestion: Add QualityAssuranceAgent.contentReview after the writer.',
    );
  });

  it('keeps completed nodes on a replan', async () => {
    server.enqueue({ kind: 'json', content: llmAnswer({ qa: true }) });
    const v1 = planOf(planRuleBased(request(sampleEnvelope())));
    const replan = {
      trigger: { kind: 'manual' },
      previousVersion: 1,
      previousPlan: v1,
      completed: { 'structuring-1': { writerBrief: {} } },
    };
    const v2 = planOf(await planner.plan(request(sampleEnvelope(), { planVersion: 2, replan })));
    expect(v2.nodes.find((n) => n.id === 'structuring-1')).toEqual(v1.nodes[0]);
    expect(v2.nodes.some((n) => n.id === 'strategy')).toBe(false);
    expect(v2.edges).toContainEqual({ from: 'structuring-1', to: 'writer' });
    expect(server.requests[0].body.messages[1].content).toContain('Keep every completed node');
  });
});
