import { agentInvokeSubject, type Messaging } from '@flex/bus';
import type { AgentContext, AgentInvocation, AgentResult } from '../agent.types';
import { defineAgent } from '../define-agent';
import { AgentError } from '../errors';
import type { AgentLogger } from '../logger';
import { startAgent, type AgentHandle, type StartAgentOptions } from '../start-agent';
import { FakeRegistry } from './fake-registry';

export interface SdkHarness {
  /** Messaging as one process sees it: NATS gives each its own connection; in-process shares one. */
  instance(): Promise<Messaging>;
  /** Subject prefix unique to this harness. */
  prefix: string;
  close(): Promise<void>;
}

const CAPABILITY = 'test.writer.en';

/** What the test agent's handler saw, and how it should behave. */
interface Script {
  calls: Array<{ invocation: AgentInvocation; ctx: AgentContext }>;
  gate?: Promise<void>;
  /** Hold the handler until ctx.signal aborts. */
  untilAborted?: boolean;
  output?: (invocation: AgentInvocation) => unknown;
  fail?: unknown;
  /** Log a few lines through ctx.logger before answering. */
  log?: boolean;
}

function testAgent(script: Script) {
  return defineAgent({
    registration: {
      capabilityId: CAPABILITY,
      version: '1.0.0',
      displayName: 'Test writer',
      summary: 'Writes one LinkedIn variant from a brief, for specs.',
      inputContract: ['writerBrief', 'toneOfVoice'],
      outputContract: ['copyVariants'],
      heartbeat: { intervalSeconds: 60 },
    },
    handle: async (invocation, ctx) => {
      script.calls.push({ invocation, ctx });
      ctx.reportUsage({ tokens: 42, model: 'test-model' });
      if (script.log) {
        ctx.logger.debug('counting tokens');
        ctx.logger.info('drafting', { angle: 'Team culture' });
        ctx.logger.warn('model slow; using the template');
      }
      if (script.gate) await script.gate;
      if (script.untilAborted)
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      if (script.fail) throw script.fail;
      if (script.output) return script.output(invocation) as Record<string, unknown>;
      const brief = invocation.inputs.writerBrief as { angle: string };
      return {
        copyVariants: [
          {
            headline: `${brief.angle} (${String(invocation.inputs.toneOfVoice)})`,
            body: `Run ${invocation.runId}, attempt ${invocation.attempt}.`,
            callToAction: 'Apply now',
          },
        ],
        notRequested: 'dropped',
      };
    },
  });
}

function invocation(overrides: Partial<AgentInvocation> = {}): AgentInvocation {
  const attempt = overrides.attempt ?? 1;
  return {
    runId: 'run-1',
    nodeId: 'write',
    attempt,
    idempotencyKey: `run-1:write:${attempt}`,
    capabilityId: CAPABILITY,
    inputs: {
      writerBrief: { angle: 'Team culture', keyPoints: ['Ownership'], constraints: [] },
      toneOfVoice: 'friendly',
    },
    outputFacets: ['copyVariants'],
    context: { objective: 'Recruit engineers', specialInstructions: ['Keep it short.'] },
    ...overrides,
  };
}

function recordingLogger(): AgentLogger & { events: string[] } {
  const events: string[] = [];
  const at = (msg: string) => void events.push(msg);
  return { events, debug: at, info: at, warn: at, error: at };
}

async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** The agent SDK's contract with the registry and the executor, over any Messaging. */
export function describeAgentSdkBehaviour(name: string, makeHarness: () => Promise<SdkHarness>): void {
  describe(`${name} (agent SDK behaviour)`, () => {
    let h: SdkHarness;
    let handles: AgentHandle[];
    let client: Messaging;
    let registry: FakeRegistry;

    const start = async (script: Script, options: Partial<StartAgentOptions> = {}) => {
      const handle = await startAgent(testAgent(script), {
        messaging: await h.instance(),
        prefix: h.prefix,
        heartbeatIntervalMs: 25,
        registerRetry: { initialDelayMs: 10, maxDelayMs: 50 },
        ...options,
      });
      handles.push(handle);
      return handle;
    };
    const invoke = (inv: unknown, timeoutMs = 3_000) =>
      client.request<AgentResult>(agentInvokeSubject(h.prefix, CAPABILITY), inv, { timeoutMs });

    beforeEach(async () => {
      h = await makeHarness();
      handles = [];
      client = await h.instance();
      registry = await FakeRegistry.start(await h.instance(), h.prefix);
    });
    afterEach(async () => {
      await Promise.all(handles.map((handle) => handle.stop('test_end')));
      await registry.stop();
      await h.close();
    });

    it('registers its registration under its instance id and its identity, then heartbeats', async () => {
      const handle = await start({ calls: [] }, { instanceId: 'writer-1', identity: 'writers' });
      await expect(handle.ready).resolves.toEqual({
        ok: true,
        capabilityId: CAPABILITY,
        instanceId: 'writer-1',
        status: 'active',
      });
      expect(registry.registered).toEqual([
        {
          instanceId: 'writer-1',
          identity: 'writers',
          registration: expect.objectContaining({
            capabilityId: CAPABILITY,
            agentType: 'ai',
            instanceId: 'writer-1',
            inputContract: ['writerBrief', 'toneOfVoice'],
          }),
        },
      ]);
      await waitFor('three heartbeats', () => registry.beatsOf('writer-1') >= 3);
      expect(registry.heartbeats[0]).toEqual({
        capabilityId: CAPABILITY,
        instanceId: 'writer-1',
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      });
    });

    it('keeps retrying registration, without failing, until a registry answers', async () => {
      await registry.stop();
      const logger = recordingLogger();
      const handle = await start({ calls: [] }, { instanceId: 'early', logger, requestTimeoutMs: 200 });
      await waitFor(
        'two failed attempts',
        () => logger.events.filter((e) => e === 'agent_registry_unavailable').length >= 2,
      );
      registry = await FakeRegistry.start(await h.instance(), h.prefix);
      await expect(handle.ready).resolves.toMatchObject({ instanceId: 'early' });
      expect(registry.registered).toHaveLength(1);
    });

    it('stops serving when the registry refuses the registration', async () => {
      await registry.stop();
      registry = await FakeRegistry.start(await h.instance(), h.prefix, () => 'unknown facet');
      const handle = await start({ calls: [] });
      await expect(handle.ready).rejects.toMatchObject({
        code: 'invalid_registration',
        retryable: false,
        message: expect.stringContaining('unknown facet'),
      });
      await handle.stop(); // already stopping on its own: this waits for it
      await expect(invoke(invocation())).rejects.toMatchObject({ code: 'NO_RESPONDERS' });
      expect(registry.deregistered).toEqual([]);
    });

    it('answers an invocation with the requested facets only, its usage, and the idempotency key passed on', async () => {
      const script: Script = { calls: [] };
      await (
        await start(script, { instanceId: 'w1' })
      ).ready;
      const result = await invoke(invocation({ deadlineMs: Date.now() + 10_000 }));
      expect(result).toEqual({
        output: {
          copyVariants: [
            { headline: 'Team culture (friendly)', body: 'Run run-1, attempt 1.', callToAction: 'Apply now' },
          ],
        },
        usage: { tokens: 42, model: 'test-model' },
      });
      const [{ invocation: seen, ctx }] = script.calls;
      expect(seen.context).toEqual({
        objective: 'Recruit engineers',
        specialInstructions: ['Keep it short.'],
      });
      expect(ctx).toMatchObject({
        idempotencyKey: 'run-1:write:1',
        capabilityId: CAPABILITY,
        instanceId: 'w1',
      });
      expect(ctx.deadline).toBeGreaterThan(Date.now());
    });

    it('returns what the handler logged at info and above with its answer, and with its error', async () => {
      const script: Script = { calls: [], log: true };
      await (
        await start(script)
      ).ready;
      const logs = [
        { level: 'info', message: 'drafting', data: { angle: 'Team culture' } },
        { level: 'warn', message: 'model slow; using the template' },
      ];
      expect(await invoke(invocation())).toMatchObject({ logs });
      script.fail = new AgentError('quota_exhausted', 'monthly quota used up', { details: { quota: 100 } });
      await expect(invoke(invocation({ attempt: 2 }))).rejects.toMatchObject({
        code: 'quota_exhausted',
        retryable: false,
        details: { quota: 100, logs },
      });
    });

    it('validates only the input facets present', async () => {
      const script: Script = { calls: [] };
      await (
        await start(script)
      ).ready;
      const inputs = { writerBrief: { angle: 'Career growth', keyPoints: ['Mentoring'], constraints: [] } };
      await expect(invoke(invocation({ inputs }))).resolves.toMatchObject({
        output: { copyVariants: [{ headline: 'Career growth (undefined)' }] },
      });
    });

    it('shares invocations between the instances of a capability', async () => {
      const scripts: Script[] = [{ calls: [] }, { calls: [] }];
      for (const [i, script] of scripts.entries()) await (await start(script, { instanceId: `w${i}` })).ready;
      await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          invoke(invocation({ runId: `run-${n}`, idempotencyKey: `run-${n}:write:1` })),
        ),
      );
      expect(scripts[0].calls.length + scripts[1].calls.length).toBe(20);
      expect(scripts.every((s) => s.calls.length > 0)).toBe(true);
    });

    const badInputs: Array<[string, unknown, RegExp]> = [
      [
        'a facet value that breaks its schema',
        invocation({ inputs: { toneOfVoice: 'shouty' } }),
        /toneOfVoice/,
      ],
      [
        'an undeclared input facet',
        invocation({ inputs: { qaRubric: { checks: ['clarity'], thresholds: {} } } }),
        /undeclared input facets: qaRubric/,
      ],
      [
        'an output facet the capability does not produce',
        invocation({ outputFacets: ['qaFindings'] }),
        /not produced by this capability: qaFindings/,
      ],
      ['an invocation for another capability', invocation({ capabilityId: 'someone.else' }), /someone\.else/],
      ['a malformed invocation', { runId: 'run-1', inputs: {} }, /malformed invocation/],
    ];
    it.each(badInputs)(
      'rejects %s as invalid_input, not retryable, without calling the handler',
      async (_what, bad, message) => {
        const script: Script = { calls: [] };
        await (
          await start(script)
        ).ready;
        await expect(invoke(bad)).rejects.toMatchObject({
          code: 'invalid_input',
          retryable: false,
          message: expect.stringMatching(message),
        });
        expect(script.calls).toHaveLength(0);
      },
    );

    it('reports which facet broke the input contract', async () => {
      await (
        await start({ calls: [] })
      ).ready;
      const error = await invoke(invocation({ inputs: { toneOfVoice: 'shouty' } })).catch((e: unknown) => e);
      expect(error).toMatchObject({
        details: {
          errors: [
            expect.objectContaining({ facet: 'toneOfVoice', pointer: '/toneOfVoice', keyword: 'enum' }),
          ],
        },
      });
    });

    it('never replies an invalid output: it becomes invalid_output, retryable, with the facet errors', async () => {
      const script: Script = { calls: [], output: () => ({ copyVariants: [{ headline: 'No body' }] }) };
      await (
        await start(script)
      ).ready;
      const error = await invoke(invocation()).catch((e: unknown) => e);
      expect(script.calls).toHaveLength(1);
      expect(error).toMatchObject({
        code: 'invalid_output',
        retryable: true,
        details: {
          errors: expect.arrayContaining([
            expect.objectContaining({ facet: 'copyVariants', keyword: 'required' }),
          ]),
        },
      });
      script.output = () => ({});
      await expect(invoke(invocation({ attempt: 2 }))).rejects.toMatchObject({
        code: 'invalid_output',
        details: { errors: [expect.objectContaining({ facet: 'copyVariants' })] },
      });
    });

    it('replays a redelivered invocation from its idempotency key without running the handler twice', async () => {
      const gate = deferred();
      const script: Script = { calls: [], gate: gate.promise };
      await (
        await start(script)
      ).ready;
      const concurrent = [invoke(invocation()), invoke(invocation())];
      await waitFor('the first delivery to start', () => script.calls.length === 1);
      gate.resolve();
      const [first, second] = await Promise.all(concurrent);
      const later = await invoke(invocation());
      expect(second).toEqual(first);
      expect(later).toEqual(first);
      expect(script.calls).toHaveLength(1);
      const retry = await invoke(invocation({ attempt: 2 }));
      expect(script.calls).toHaveLength(2);
      expect(retry.output).not.toEqual(first.output);
    });

    it('does not cache failures: the same key runs again after an error', async () => {
      const script: Script = { calls: [], fail: new Error('model overloaded') };
      await (
        await start(script)
      ).ready;
      await expect(invoke(invocation())).rejects.toMatchObject({
        code: 'agent_failed',
        retryable: true,
        message: expect.stringContaining('model overloaded'),
      });
      script.fail = new AgentError('quota_exhausted', 'monthly quota used up', {
        retryable: false,
        details: { quota: 100 },
      });
      await expect(invoke(invocation())).rejects.toMatchObject({
        code: 'quota_exhausted',
        retryable: false,
        details: { quota: 100 },
      });
      script.fail = undefined;
      await expect(invoke(invocation())).resolves.toHaveProperty('output.copyVariants');
      expect(script.calls).toHaveLength(3);
    });

    it('aborts ctx.signal when the deadline passes', async () => {
      const script: Script = { calls: [], untilAborted: true };
      await (
        await start(script)
      ).ready;
      const started = Date.now();
      await expect(invoke(invocation({ deadlineMs: 80 }))).resolves.toHaveProperty('output');
      expect(script.calls[0].ctx.signal.aborted).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(70);
    });

    it('stops gracefully: finishes in-flight work, stops heartbeats, deregisters, stops serving', async () => {
      const gate = deferred();
      const script: Script = { calls: [], gate: gate.promise };
      const handle = await start(script, { instanceId: 'leaving' });
      await handle.ready;
      // Long enough to outlast the refusal polling below on a loaded machine.
      const inFlight = invoke(invocation(), 20_000);
      await waitFor('the invocation to start', () => script.calls.length === 1);
      const stopped = handle.stop('rolling_update');
      const refused = async () =>
        (await invoke(invocation({ attempt: 9 })).catch((e: { code?: string }) => e.code)) ===
        'NO_RESPONDERS';
      await waitFor('new invocations to be refused', refused);
      expect(registry.deregistered).toEqual([]);
      gate.resolve();
      await expect(inFlight).resolves.toHaveProperty('output.copyVariants');
      await stopped;
      expect(registry.deregistered).toEqual([
        { capabilityId: CAPABILITY, instanceId: 'leaving', reason: 'rolling_update' },
      ]);
      const beats = registry.beatsOf('leaving');
      await new Promise((resolve) => setTimeout(resolve, 100)); // a window four heartbeat intervals wide: nothing may arrive in it
      expect(registry.beatsOf('leaving')).toBe(beats);
      await expect(invoke(invocation({ attempt: 2 }))).rejects.toMatchObject({ code: 'NO_RESPONDERS' });
      await handle.stop();
      expect(registry.deregistered).toHaveLength(1);
    });
  });
}
