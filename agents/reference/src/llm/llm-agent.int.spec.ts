import {
  startAgent,
  type AgentHandle,
  type AgentInvocation,
  type AgentLogger,
  type AgentResult,
} from '@flex/agent-sdk';
import { agentInvokeSubject, InProcessMessaging } from '@flex/bus';
import { defaultFacetCompiler } from '@flex/facets';
import { startOpenAiServer, type OpenAiServer } from '@flex/testing';
import { writeVariants } from '../content-generator';
import { reviewCopy } from '../quality-assurance';
import { buildBriefing } from '../strategy-manager';
import { recruitingContext, recruitingInputs } from '../test-support/recruiting-brief';
import { llmReferenceAgents, referenceAgents } from '../start-reference-agents';
import { completeStructured, LlmUnavailableError, retryAfterMs } from './chat-completions';
import { FALLBACK_MODEL } from './llm-agent';
import { llmConfigFrom, type LlmConfig } from './llm.config';

const prefix = 'llm_spec';
const QA = 'QualityAssuranceAgent.contentReview';
const { writerBrief, planKnobs } = buildBriefing(recruitingInputs, recruitingContext);
const copyVariants = writeVariants(
  { writerBrief, planKnobs, toneOfVoice: 'friendly', audienceProfile: recruitingInputs.audienceProfile },
  recruitingContext,
);
const qaInputs = { copyVariants, writerBrief };
const qaContract = defaultFacetCompiler().compile(['qaFindings', 'recommendationSet'], 'output');

/** What a good model would answer for the QA agent. */
const modelReview = {
  qaFindings: {
    overallScore: 0.82,
    scores: { readability: 0.9, clarity: 0.8, objective_fit: 0.85, policy_risk: 0.95 },
    issues: [],
    overallStatus: 'pass',
  },
  recommendationSet: [
    {
      severity: 'low',
      recommendation: 'Name the team lead in variant 2.',
      rationale: 'A named person makes the post more concrete.',
    },
  ],
};

function recordingLogger(): AgentLogger & { lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const at = (level: string) => (msg: string, data?: Record<string, unknown>) =>
    void lines.push({ level, msg, ...data });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('the reference agents through an OpenAI-compatible API (a real local HTTP server)', () => {
  let server: OpenAiServer;
  let messaging: InProcessMessaging;
  let handles: AgentHandle[];
  let logger: ReturnType<typeof recordingLogger>;
  let calls = 0;

  const llm = (overrides: Partial<LlmConfig> = {}): LlmConfig => ({
    ...(llmConfigFrom({
      FLEX_LLM_BASE_URL: server.baseUrl,
      FLEX_LLM_API_KEY: 'sk-test',
      FLEX_LLM_MODEL: 'test-model',
    }) as LlmConfig),
    ...overrides,
  });

  async function start(config: LlmConfig | undefined, capabilityId = QA): Promise<void> {
    const agents = config ? llmReferenceAgents(config) : referenceAgents;
    const agent = agents.find((a) => a.registration.capabilityId === capabilityId);
    handles.push(
      await startAgent(agent!, {
        messaging,
        prefix,
        logger,
        registerRetry: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
      }),
    );
  }

  function invoke(
    inputs: Record<string, unknown>,
    outputFacets: string[],
    capabilityId = QA,
  ): Promise<AgentResult> {
    calls += 1;
    const invocation: AgentInvocation = {
      runId: 'run-llm',
      nodeId: `n${calls}`,
      attempt: 1,
      idempotencyKey: `run-llm:n${calls}:1`,
      capabilityId,
      inputs,
      outputFacets,
      context: recruitingContext,
    };
    return messaging.request<AgentResult>(agentInvokeSubject(prefix, capabilityId), invocation, {
      timeoutMs: 20_000,
    });
  }

  beforeAll(async () => {
    server = await startOpenAiServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    messaging = new InProcessMessaging({ logger: { warn: () => undefined, error: () => undefined } });
    handles = [];
    logger = recordingLogger();
    server.requests.length = 0;
    server.setFallback(() => ({
      kind: 'status',
      status: 500,
      body: { error: { message: 'no scripted reply' } },
    }));
  });
  afterEach(async () => {
    await Promise.all(handles.map((h) => h.stop('test_done')));
    await messaging.drain();
  });

  it('stays deterministic when no LLM is configured', async () => {
    expect(llmConfigFrom({ FLEX_LLM_MODEL: 'x' })).toBeUndefined();
    await start(undefined);
    const result = await invoke(qaInputs, []);
    expect(result.output).toEqual(reviewCopy({ ...qaInputs }));
    expect(result.usage).toEqual({ tokens: 0, costCents: 0, model: 'deterministic' });
    expect(server.requests).toHaveLength(0);
  });

  it('valid answer: asks with the compiled output contract as a strict JSON schema, validates, and reports the tokens', async () => {
    server.enqueue({
      kind: 'json',
      content: modelReview,
      usage: { prompt_tokens: 700, completion_tokens: 120 },
    });
    await start(llm());
    const result = await invoke(qaInputs, ['qaFindings', 'recommendationSet']);
    expect(result.output).toEqual(modelReview);
    expect(result.usage).toEqual({ tokens: 820, model: 'test-model' });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(request.body.model).toBe('test-model');
    expect(request.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'QualityAssuranceAgent_contentReview', strict: true, schema: qaContract.schema },
    });
    expect(request.body.messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('readability, clarity, objective fit and policy risk'),
    });
    expect(JSON.parse(request.body.messages[1].content)).toMatchObject({
      objective: recruitingContext.objective,
      inputs: { copyVariants },
    });
  });

  it('invalid JSON: retries with the problem named, and uses the next valid answer', async () => {
    server.enqueue(
      { kind: 'text', content: '{"qaFindings": {"overallScore": 0.8,' },
      { kind: 'json', content: modelReview },
    );
    await start(llm());
    const result = await invoke(qaInputs, []);
    expect(result.output).toEqual(modelReview);
    expect(result.usage).toEqual({ tokens: 300, model: 'test-model' });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1].body.messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('not valid JSON'),
    });
  });

  it('an answer that breaks the output contract is retried too, never returned', async () => {
    const broken = { ...modelReview, qaFindings: { ...modelReview.qaFindings, overallScore: 7 } };
    server.enqueue({ kind: 'json', content: broken }, { kind: 'json', content: modelReview });
    await start(llm());
    const result = await invoke(qaInputs, []);
    expect(result.output).toEqual(modelReview);
    expect(server.requests[1].body.messages.at(-1).content).toMatch(
      /broke the schema: qaFindings .*overallScore/,
    );
  });

  it('invalid JSON on every attempt: falls back to the deterministic review after maxAttempts calls, counting the tokens spent', async () => {
    server.setFallback(() => ({ kind: 'text', content: 'Sure! Here is your review: great post.' }));
    await start(llm({ maxAttempts: 3 }));
    const result = await invoke(qaInputs, []);
    expect(server.requests).toHaveLength(3);
    expect(result.output).toEqual(reviewCopy({ ...qaInputs }));
    expect(result.usage).toEqual({ tokens: 450, costCents: 0, model: FALLBACK_MODEL });
    expect(logger.lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ msg: 'agent_llm_fallback', reason: expect.stringContaining('not JSON') }),
      ]),
    );
  });

  it('429: waits for Retry-After, then uses the answer', async () => {
    server.enqueue(
      {
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '1' },
        body: { error: { message: 'rate limited' } },
      },
      { kind: 'json', content: modelReview },
    );
    await start(llm());
    const started = Date.now();
    const result = await invoke(qaInputs, []);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(result.output).toEqual(modelReview);
    expect(server.requests).toHaveLength(2);
    expect(logger.lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ msg: 'agent_llm_retry', reason: 'HTTP 429', retryInMs: 1000 }),
      ]),
    );
  });

  it('429 with a Retry-After longer than allowed: no retry, the deterministic answer at once', async () => {
    server.enqueue({ kind: 'status', status: 429, headers: { 'retry-after': '120' } });
    await start(llm({ maxRetryAfterMs: 2_000 }));
    const started = Date.now();
    const result = await invoke(qaInputs, []);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(1);
    expect(result.output).toEqual(reviewCopy({ ...qaInputs }));
    expect(result.usage?.model).toBe(FALLBACK_MODEL);
  });

  it('429 on every attempt: bounded retries with backoff, then the deterministic answer', async () => {
    server.setFallback(() => ({ kind: 'status', status: 429 }));
    await start(llm({ maxAttempts: 3 }));
    const result = await invoke(qaInputs, []);
    expect(server.requests).toHaveLength(3);
    expect(result.output).toEqual(reviewCopy({ ...qaInputs }));
  });

  it('timeout: a model that never answers is abandoned after timeoutMs (AbortSignal) and not retried', async () => {
    server.setFallback(() => ({ kind: 'hang' }));
    await start(llm({ timeoutMs: 300 }));
    const started = Date.now();
    const result = await invoke(qaInputs, []);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(1);
    expect(result.output).toEqual(reviewCopy({ ...qaInputs }));
    expect(logger.lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ msg: 'agent_llm_fallback', reason: 'no answer within 300 ms' }),
      ]),
    );
  });

  it('the copywriter asks for the planned number of variants and only the requested facets', async () => {
    const variants = [
      {
        headline: 'Build payments at scale',
        body: 'Join the Berlin platform team.',
        callToAction: 'Apply now',
      },
    ];
    server.enqueue({ kind: 'json', content: { copyVariants: variants } });
    await start(llm(), 'ContentGeneratorAgent.linkedinVariants');
    const result = await invoke(
      { writerBrief, planKnobs: { ...planKnobs, variantCount: 3 }, toneOfVoice: 'friendly' },
      ['copyVariants'],
      'ContentGeneratorAgent.linkedinVariants',
    );
    expect(result.output).toEqual({ copyVariants: variants });
    expect(server.requests[0].body.messages[0].content).toContain('Write exactly 3 LinkedIn post variants');
    expect(server.requests[0].body.response_format.json_schema.schema).toEqual(
      defaultFacetCompiler().compile(['copyVariants'], 'output').schema,
    );
  });
});

describe('completeStructured', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs('0.5')).toBe(500);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });

  it('stops on a refusal status other than 429/5xx and says why', async () => {
    const server = await startOpenAiServer();
    try {
      server.enqueue({ kind: 'status', status: 401, body: { error: { message: 'bad key' } } });
      const config = llmConfigFrom({ FLEX_LLM_BASE_URL: server.baseUrl }) as LlmConfig;
      const failure = await completeStructured(config, {
        name: 'x',
        schema: { type: 'object' },
        messages: [{ role: 'user', content: 'hi' }],
        validate: () => [],
      }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(LlmUnavailableError);
      expect(failure).toMatchObject({ reason: 'HTTP 401: bad key', usage: { attempts: 1, tokens: 0 } });
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0].headers.authorization).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('fails fast on a bad LLM configuration', () => {
    expect(() => llmConfigFrom({ FLEX_LLM_BASE_URL: 'not a url' })).toThrow(/FLEX_LLM_BASE_URL/);
    expect(() => llmConfigFrom({ FLEX_LLM_BASE_URL: 'http://x/v1', FLEX_LLM_MAX_ATTEMPTS: '0' })).toThrow(
      /FLEX_LLM_MAX_ATTEMPTS/,
    );
    expect(llmConfigFrom({ FLEX_LLM_BASE_URL: 'http://x/v1/', FLEX_LLM_API_KEY: '' })).toEqual({
      baseUrl: 'http://x/v1',
      apiKey: undefined,
      model: 'gpt-4o-mini',
      timeoutMs: 30_000,
      maxAttempts: 3,
      maxRetryAfterMs: 10_000,
    });
  });
});
