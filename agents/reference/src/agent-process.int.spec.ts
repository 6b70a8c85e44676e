import { agentInvokeSubject, NatsMessaging, registrySubjects, type Messaging } from '@flex/bus';
import type { AgentLogger, AgentResult } from '@flex/agent-sdk';
import { freePort, natsTestUrl, startOpenAiServer, testPrefix } from '@flex/testing';
import { startAgentProcess } from './agent-process';
import { AgentConfigError, loadAgentConfig } from './config';
import { recruitingContext, recruitingInputs } from './test-support/recruiting-brief';

const prefix = testPrefix('agents_reference');
const quiet = { warn: () => undefined, error: () => undefined };

async function waitFor(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function recordingLogger(): AgentLogger & { lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const at = (level: string) => (msg: string, data?: Record<string, unknown>) =>
    void lines.push({ level, msg, ...data });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('the reference agents process over NATS', () => {
  const opened: NatsMessaging[] = [];
  const connect = async (): Promise<Messaging> => {
    const m = await NatsMessaging.connect(natsTestUrl(), { logger: quiet });
    opened.push(m);
    return m;
  };
  afterAll(() => Promise.all(opened.map((m) => m.drain())));

  it('registers the agents named in FLEX_AGENTS, heartbeats, serves, and deregisters on shutdown', async () => {
    const registryConn = await connect();
    const subjects = registrySubjects(prefix);
    const registered: string[] = [];
    const beats = new Set<string>();
    const deregistered: Array<{ capabilityId: string; reason: string }> = [];
    await registryConn.serve(subjects.registerAll, {}, async (req) => {
      const { registration, instanceId } = req.data as {
        registration: { capabilityId: string };
        instanceId: string;
      };
      registered.push(registration.capabilityId);
      return { ok: true, capabilityId: registration.capabilityId, instanceId, status: 'active' };
    });
    await registryConn.subscribe(
      subjects.heartbeatAll,
      (req) => void beats.add((req.data as { capabilityId: string }).capabilityId),
    );
    await registryConn.serve(
      subjects.deregisterAll,
      {},
      async (req) => void deregistered.push(req.data as { capabilityId: string; reason: string }),
    );

    const config = loadAgentConfig({
      FLEX_NATS_URL: natsTestUrl(),
      FLEX_NATS_PREFIX: prefix,
      FLEX_AGENTS: 'StrategyManagerAgent.briefing, QualityAssuranceAgent.contentReview',
      FLEX_AGENT_HEARTBEAT_MS: '50',
      PORT: String(await freePort()),
    });
    const logger = recordingLogger();
    const running = await startAgentProcess(config, logger);
    await running.agents.ready;
    expect(registered.sort()).toEqual([
      'QualityAssuranceAgent.contentReview',
      'StrategyManagerAgent.briefing',
    ]);
    await waitFor('heartbeats from both agents', () => beats.size === 2);

    const executor = await connect();
    const result = await executor.request<AgentResult>(
      agentInvokeSubject(prefix, 'StrategyManagerAgent.briefing'),
      {
        runId: 'r1',
        nodeId: 'strategy',
        attempt: 1,
        idempotencyKey: 'r1:strategy:1',
        capabilityId: 'StrategyManagerAgent.briefing',
        inputs: recruitingInputs,
        outputFacets: ['writerBrief'],
        context: recruitingContext,
      },
      { timeoutMs: 5_000 },
    );
    expect(result.output).toEqual({
      writerBrief: expect.objectContaining({ angle: expect.stringContaining('Acme Robotics') }),
    });
    await expect(
      executor.request(
        agentInvokeSubject(prefix, 'ContentGeneratorAgent.linkedinVariants'),
        {},
        { timeoutMs: 1_000 },
      ),
    ).rejects.toMatchObject({ code: 'NO_RESPONDERS' });

    const health = await fetch(`http://127.0.0.1:${config.port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      status: 'ok',
      agents: [
        expect.objectContaining({ capabilityId: 'StrategyManagerAgent.briefing', registered: true }),
        expect.objectContaining({ registered: true }),
      ],
    });
    const ready = await fetch(`http://127.0.0.1:${config.port}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready' });
    const metrics = await (await fetch(`http://127.0.0.1:${config.port}/metrics`)).text();
    expect(metrics).toContain('flex_agent_registered{capability="QualityAssuranceAgent.contentReview"} 1');
    expect(metrics).toContain(
      'flex_agent_invocations_total{capability="StrategyManagerAgent.briefing",outcome="ok"} 1',
    );

    await running.stop('signal:SIGTERM');
    expect(deregistered.map((d) => [d.capabilityId, d.reason]).sort()).toEqual([
      ['QualityAssuranceAgent.contentReview', 'signal:SIGTERM'],
      ['StrategyManagerAgent.briefing', 'signal:SIGTERM'],
    ]);
    const events = logger.lines.map((l) => l.msg);
    expect(events).toEqual(
      expect.arrayContaining([
        'nats_connected',
        'agent_started',
        'agent_registered',
        'agent_invocation_completed',
        'agent_stopping',
        'agent_deregistered',
        'agent_stopped',
        'nats_drained',
      ]),
    );
    expect(logger.lines.find((l) => l.msg === 'agent_invocation_completed')).toMatchObject({
      capabilityId: 'StrategyManagerAgent.briefing',
      runId: 'r1',
      idempotencyKey: 'r1:strategy:1',
    });
  });
});

describe('the reference agents process with FLEX_LLM_BASE_URL set', () => {
  it('answers through the configured chat-completions API over NATS, with the model and key from the environment', async () => {
    const server = await startOpenAiServer();
    const llmPrefix = `${prefix}_llm`;
    const writerBrief = {
      angle: 'Berlin platform engineers own payments end to end.',
      keyPoints: ['Objective: recruit senior backend engineers.'],
      constraints: ['Write in a friendly tone.'],
    };
    server.enqueue({
      kind: 'json',
      content: { writerBrief },
      usage: { prompt_tokens: 40, completion_tokens: 2 },
    });
    const config = loadAgentConfig({
      FLEX_NATS_URL: natsTestUrl(),
      FLEX_NATS_PREFIX: llmPrefix,
      FLEX_AGENTS: 'StrategyManagerAgent.briefing',
      FLEX_LLM_BASE_URL: server.baseUrl,
      FLEX_LLM_API_KEY: 'sk-env',
      FLEX_LLM_MODEL: 'env-model',
    });
    expect(config.llm).toMatchObject({ baseUrl: server.baseUrl, apiKey: 'sk-env', model: 'env-model' });
    const running = await startAgentProcess(config, recordingLogger());
    const executor = await NatsMessaging.connect(natsTestUrl(), { logger: quiet });
    try {
      const result = await executor.request<AgentResult>(
        agentInvokeSubject(llmPrefix, 'StrategyManagerAgent.briefing'),
        {
          runId: 'r2',
          nodeId: 'strategy',
          attempt: 1,
          idempotencyKey: 'r2:strategy:1',
          capabilityId: 'StrategyManagerAgent.briefing',
          inputs: recruitingInputs,
          outputFacets: ['writerBrief'],
          context: recruitingContext,
        },
        { timeoutMs: 10_000 },
      );
      expect(result).toEqual({ output: { writerBrief }, usage: { tokens: 42, model: 'env-model' } });
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0].headers.authorization).toBe('Bearer sk-env');
      expect(server.requests[0].body.response_format.json_schema).toMatchObject({
        name: 'StrategyManagerAgent_briefing',
        strict: true,
      });
    } finally {
      await executor.drain();
      await running.stop('test_done');
      await server.close();
    }
  });
});

describe('loadAgentConfig', () => {
  it('defaults the prefix to flex and the agents to all three', () => {
    expect(loadAgentConfig({ FLEX_NATS_URL: 'nats://x:4222' })).toEqual({
      natsUrl: 'nats://x:4222',
      natsAuth: {},
      prefix: 'flex',
      agents: [
        'StrategyManagerAgent.briefing',
        'ContentGeneratorAgent.linkedinVariants',
        'QualityAssuranceAgent.contentReview',
      ],
      heartbeatIntervalMs: undefined,
      port: undefined,
      logLevel: 'info',
    });
  });

  it('reads the NATS identity, its credentials and the TLS CA', () => {
    const config = loadAgentConfig({
      FLEX_NATS_URL: 'nats://x:4222',
      FLEX_NATS_USER: 'agents',
      FLEX_NATS_PASSWORD: 's3cret-s3cret',
      FLEX_NATS_TLS_CA: '/etc/flex/nats-ca/ca.crt',
    });
    expect(config.natsAuth).toEqual({
      user: 'agents',
      password: 's3cret-s3cret',
      tls: { caFile: '/etc/flex/nats-ca/ca.crt' },
    });
    expect(() => loadAgentConfig({ FLEX_NATS_URL: 'nats://x', FLEX_NATS_USER: 'has space' })).toThrow(
      /FLEX_NATS_USER/,
    );
  });

  it('fails fast on a missing URL, a bad prefix or an unknown agent', () => {
    expect(() => loadAgentConfig({})).toThrow(AgentConfigError);
    expect(() => loadAgentConfig({ FLEX_NATS_URL: 'nats://x', FLEX_NATS_PREFIX: 'a b' })).toThrow(
      /FLEX_NATS_PREFIX/,
    );
    expect(() => loadAgentConfig({ FLEX_NATS_URL: 'nats://x', FLEX_AGENTS: 'Nope.agent' })).toThrow(
      /FLEX_AGENTS/,
    );
    expect(() => loadAgentConfig({ FLEX_NATS_URL: 'nats://x', FLEX_LOG_LEVEL: 'loud' })).toThrow(
      /FLEX_LOG_LEVEL: .*"trace"/,
    );
    expect(loadAgentConfig({ FLEX_NATS_URL: 'nats://x', FLEX_LOG_LEVEL: 'warn' }).logLevel).toBe('warn');
  });
});
