import { defineAgent } from '@flex/agent-sdk';
import { contentGeneratorAgent } from '@flex/agents-reference';
import {
  envelopeWithPolicies,
  isTerminalEvent,
  startAgents,
  startRunEndsFlex,
  type RunEndsFlex,
  ended,
} from './test-support/run-ends.harness';

const CUT_EMOJI = '\u{1F600}'.slice(0, 1);
/** What the careless writer puts in its first variant's body, by the marker in the run's objective. */
const SPOILERS: Record<string, string> = {
  nul: 'a NUL \u0000 here',
  surrogate: `a cut emoji ${CUT_EMOJI}`,
  never: `always cut ${CUT_EMOJI}`,
};

/**
 * The reference writer, except that its answer holds text Postgres cannot store: on the first
 * attempt for `[spoil: nul]` and `[spoil: surrogate]`, on every attempt for `[spoil: never]`.
 */
const carelessWriter = defineAgent({
  registration: contentGeneratorAgent.registration,
  handle: async (invocation, ctx) => {
    const out = (await contentGeneratorAgent.handle(invocation, ctx)) as {
      copyVariants: Array<{ body: string }>;
    };
    const kind = /\[spoil: (\w+)\]/.exec(invocation.context.objective)?.[1];
    if (!kind || (kind !== 'never' && invocation.attempt > 1)) return out;
    return {
      copyVariants: out.copyVariants.map((v, i) =>
        i === 0 ? { ...v, body: `${v.body} ${SPOILERS[kind]}` } : v,
      ),
    };
  },
});

/**
 * An agent output Postgres refuses to store (a NUL, an unpaired surrogate) is an invalid output: a
 * `validation_error` naming the path, then a retry like any other, and the run still ends.
 */
describe('an agent output that cannot be stored (embedded, HTTP and SSE)', () => {
  let h: RunEndsFlex;
  let stopAgents: () => Promise<void>;

  beforeAll(async () => {
    h = await startRunEndsFlex({ FLEX_NODE_MAX_ATTEMPTS: '2' });
    stopAgents = await startAgents(h.flex, carelessWriter);
  }, 60_000);

  afterAll(async () => {
    await stopAgents?.();
    await h?.close();
  });

  const start = (kind: string) => {
    const envelope = envelopeWithPolicies();
    return h.client.start({ ...envelope, objective: `${String(envelope.objective)} [spoil: ${kind}]` });
  };

  it.each([
    ['a NUL', 'nul', /U\+0000/],
    ['a lone surrogate', 'surrogate', /unpaired UTF-16 surrogate/],
  ])(
    '%s: validation_error naming the path, a retry, and the run completes',
    async (_what, kind, reason) => {
      const run = await start(kind);
      const frames = await ended(run);
      const invalid = frames.find((f) => f.type === 'validation_error');
      expect(invalid).toMatchObject({
        payload: {
          scope: 'capability_output',
          attempt: 1,
          errors: [
            { path: '/copyVariants/0/body', keyword: 'storable', message: expect.stringMatching(reason) },
          ],
        },
      });
      const nodeId = invalid?.payload.nodeId;
      const attempts = frames.filter((f) => f.payload?.nodeId === nodeId);
      expect(attempts.map((f) => f.type)).toEqual([
        'node_start',
        'validation_error',
        'node_error',
        'node_start',
        'node_complete',
      ]);
      expect(attempts[2].payload).toMatchObject({
        attempt: 1,
        error: { code: 'invalid_output' },
        willRetry: true,
      });
      expect(frames[frames.length - 1].type).toBe('complete');
      const stored = await h.events(run.runId);
      expect(stored.filter(isTerminalEvent).map((e) => e.type)).toEqual(['complete']);
    },
    90_000,
  );

  it('on every attempt: the retries run out and a human is asked for the output, as for any invalid output; the run completes', async () => {
    const run = await start('never');
    const operatorSteps = handleHumanRequests(run.runId);
    const frames = await ended(run);
    expect(await operatorSteps).toBe(true);
    const invalid = frames.filter(
      (f) => f.type === 'validation_error' && f.payload.scope === 'capability_output',
    );
    expect(invalid.map((f) => f.payload.attempt)).toEqual([1, 2]);
    expect(invalid.every((f) => f.payload.errors[0].keyword === 'storable')).toBe(true);
    const nodeId = invalid[0].payload.nodeId;
    expect(frames.find((f) => f.type === 'hitl_request')?.payload).toMatchObject({
      nodeId,
      mode: 'node_output',
    });
    expect(frames[frames.length - 1]).toMatchObject({
      type: 'complete',
      payload: { output: { copyVariants: [{ body: 'Join the team \u{1F600}' }, {}] } },
    });
    expect((await h.events(run.runId)).filter(isTerminalEvent)).toHaveLength(1);
  }, 90_000);

  /**
   * When the repair reaches a human for the node's output: an unstorable payload is a 400 naming
   * its path (nothing recorded), then a good one completes the node.
   */
  async function handleHumanRequests(runId: string): Promise<boolean> {
    const request = await h.waitForEvent(runId, (e) => e.type === 'hitl_request' || isTerminalEvent(e));
    if (request.type !== 'hitl_request') return false;
    const { requestId } = request.payload as { requestId: string };
    const variant = {
      headline: 'Grow with us',
      body: `Join the team ${CUT_EMOJI}`,
      callToAction: 'Apply now',
    };
    const body = (payload: unknown) => ({ runId, requestId, decision: 'approve', payload });
    const before = (await h.events(runId)).length;
    const bad = await h.operator.json(
      'POST',
      '/api/v1/flex/hitl/resolve',
      body({ copyVariants: [variant, variant] }),
    );
    expect(bad).toMatchObject({
      status: 400,
      body: {
        error: {
          code: 'unstorable_text',
          message: expect.stringMatching(/^payload\.copyVariants\[0\]\.body: contains an unpaired/),
        },
      },
    });
    expect((await h.events(runId)).length).toBe(before);
    const good = { ...variant, body: 'Join the team \u{1F600}' };
    const resolved = await h.operator.json(
      'POST',
      '/api/v1/flex/hitl/resolve',
      body({ copyVariants: [good, { ...good, headline: 'Build with us' }] }),
    );
    expect(resolved.status).toBe(200);
    return true;
  }
});
