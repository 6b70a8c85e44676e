import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { loadConfig } from '@flex/runtime';
import { FlexClient, startOpenAiServer, waitFor, type OpenAiServer } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { llmAnswer } from '../../services/planner/src/llm/llm-answers.fixture';
import { sampleEnvelope } from '../sample-run';
import { fromReadableSpan, parentNames, spanText } from '../trace-spans';

const TOKEN = 'llm-trace-client';

/** LLM calls are GenAI client spans: model and tokens, never the prompt or the answer. */
describe('tracing: LLM calls (embedded, a local OpenAI-compatible server)', () => {
  const exporter = new InMemorySpanExporter();
  let llm: OpenAiServer;
  let flex: EmbeddedFlex;

  beforeAll(async () => {
    llm = await startOpenAiServer();
    llm.setFallback(() => ({
      kind: 'json',
      content: llmAnswer(),
      usage: { prompt_tokens: 812, completion_tokens: 97 },
    }));
    const config = loadConfig({
      FLEX_API_TOKENS: `${TOKEN}:client`,
      FLEX_LOG_LEVEL: 'silent',
      PORT: '0',
      FLEX_PLANNER: 'llm',
      FLEX_LLM_BASE_URL: llm.baseUrl,
      FLEX_LLM_MODEL: 'planner-model',
    });
    flex = await startEmbedded({ config, dataDir: null, traceExporter: exporter });
  }, 90_000);

  afterAll(async () => {
    await flex?.close();
    await llm?.close();
  });

  it('records `chat <model>` under the planning attempt and the agents’ invocations, with the GenAI attributes', async () => {
    const envelope = sampleEnvelope();
    const result = await new FlexClient(flex.url, TOKEN).runStream(envelope);
    expect(result.frames[result.frames.length - 1]?.type).toBe('complete');
    const spans = await waitFor(
      async () => {
        const now = exporter.getFinishedSpans().map(fromReadableSpan);
        return now.some((s) => s.name === 'run.stream') ? now : undefined;
      },
      10_000,
      () => 'no run.stream span',
    );
    const chats = spans.filter((s) => s.name === 'chat planner-model');
    expect(chats.length).toBeGreaterThan(0);
    // The planner's calls, and the reference agents' (FLEX_LLM_* switches them to the model too).
    expect(new Set(parentNames(spans, 'chat planner-model'))).toEqual(
      new Set(['plan.draft', 'agent.invoke']),
    );
    const drafts = new Set(spans.filter((s) => s.name === 'plan.draft').map((s) => s.spanId));
    const planners = chats.filter((s) => drafts.has(s.parentSpanId ?? ''));
    expect(planners[0].attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'planner-model',
      'gen_ai.usage.input_tokens': 812,
      'gen_ai.usage.output_tokens': 97,
    });
    expect(llm.requests.length).toBeGreaterThan(0);
    expect(spanText(spans)).not.toContain(envelope.objective);
  }, 60_000);
});
