import { defineAgent } from '@flex/agent-sdk';
import { contentGeneratorAgent } from '@flex/agents-reference';
import type { FlexClient } from '@flex/testing';
import { waitFor } from '@flex/testing';
import type { EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import {
  backupWriter,
  envelopeWithPolicies,
  isTerminal,
  openRun,
  runEvents,
  startFlex,
  startTestAgents,
  waitForEvent,
} from './embedded-run';

const WRITER = contentGeneratorAgent.registration.capabilityId;
const BACKUP = 'ZZ.backupWriter';

/** Retries → fallback capability → HITL through the plan's fallback node, with agents defined here on the embedded messaging. */
describe('executor: the fallback chain through the API', () => {
  let flex: EmbeddedFlex;
  let client: FlexClient;
  let operator: FlexClient;
  let stopAgents: (() => Promise<void>) | undefined;
  let backupWorks = true;
  const calls: Record<string, number> = {};

  beforeAll(async () => {
    ({ flex, client, operator } = await startFlex({ FLEX_NODE_MAX_ATTEMPTS: '2' }));
    // The planner's writer answers with output that breaks its own contract, every time.
    const broken = defineAgent({
      registration: contentGeneratorAgent.registration,
      handle: async () => {
        calls[WRITER] = (calls[WRITER] ?? 0) + 1;
        return { copyVariants: 'not an array' };
      },
    });
    const backup = backupWriter(
      BACKUP,
      () => backupWorks,
      () => (calls[BACKUP] = (calls[BACKUP] ?? 0) + 1),
    );
    stopAgents = await startTestAgents(flex, [broken, backup]);
  }, 60_000);

  afterAll(async () => {
    await stopAgents?.();
    await flex?.close();
  });

  it('retries spent on the planned writer: the node moves to another active capability producing copyVariants, and the invalid output never reaches the final output', async () => {
    backupWorks = true;
    const policies = [
      {
        id: 'writer_invalid',
        trigger: { kind: 'onValidationFail', selector: { capabilityId: WRITER } },
        action: { type: 'emit', event: 'writer_output_invalid' },
      },
      {
        id: 'no_tokens',
        trigger: { kind: 'onMetricBelow', metric: 'tokens', threshold: 1 },
        action: { type: 'emit', event: 'no_usage_reported' },
      },
    ];
    const run = await openRun(client, envelopeWithPolicies(policies));
    const frames = await run.frames;
    const last = frames[frames.length - 1];
    expect(last.type).toBe('complete');
    const writerNode = frames.find(
      (f) => f.type === 'node_start' && f.payload.capabilityId === WRITER,
    )!.nodeId;
    const starts = frames
      .filter((f) => f.type === 'node_start' && f.nodeId === writerNode)
      .map((f) => [f.payload.attempt, f.payload.capabilityId]);
    expect(starts).toEqual([
      [1, WRITER],
      [2, WRITER],
      [3, BACKUP],
    ]);
    expect(
      frames
        .filter((f) => f.type === 'node_error' && f.nodeId === writerNode)
        .map((f) => f.payload.willRetry),
    ).toEqual([true, false]);
    expect(frames.find((f) => f.type === 'node_complete' && f.nodeId === writerNode)!.payload).toMatchObject({
      capabilityId: BACKUP,
      attempt: 3,
    });
    expect(Array.isArray(last.payload.output.copyVariants)).toBe(true);
    expect(JSON.stringify(last.payload.output)).not.toContain('not an array');
    // onValidationFail saw each refused output (the SDK's facet issues, recorded as validation_error); onMetricBelow fired once.
    const invalid = frames.filter((f) => f.type === 'validation_error' && f.nodeId === writerNode);
    expect(invalid.map((f) => f.payload.scope)).toEqual(['capability_output', 'capability_output']);
    const custom = frames.filter((f) => f.type === 'custom_event').map((f) => f.payload.event);
    expect(custom.filter((e) => e === 'writer_output_invalid')).toHaveLength(2);
    expect(custom.filter((e) => e === 'no_usage_reported')).toHaveLength(1);
  }, 60_000);

  it('fallback capability failing too: the fallback node asks an operator; an invalid payload is a 400 + validation_error and keeps the node waiting; a valid one completes the run with it', async () => {
    backupWorks = false;
    const run = await openRun(client, envelopeWithPolicies([]));
    const request = await waitForEvent(flex, run.runId, (e) => e.type === 'hitl_request');
    expect(request.payload).toMatchObject({
      mode: 'node_output',
      contractSummary: { outputFacets: ['copyVariants'] },
      artifact: { fallbackNodeId: 'fallback-1' },
    });
    const { requestId, nodeId } = request.payload as { requestId: string; nodeId: string };
    const waiting = (await client.json('GET', `/api/v1/flex/runs/${run.runId}`)).body;
    expect(waiting.run.status).toBe('awaiting_hitl');
    expect(waiting.nodes.find((n: { nodeId: string }) => n.nodeId === nodeId).status).toBe('awaiting_hitl');
    expect(waiting.hitlRequests).toEqual([expect.objectContaining({ requestId, nodeId, status: 'pending' })]);

    const invalid = await operator.json('POST', '/api/v1/flex/hitl/resolve', {
      runId: run.runId,
      requestId,
      decision: 'approve',
      payload: { copyVariants: [{ headline: 1 }] },
    });
    expect(invalid).toMatchObject({ status: 400, body: { error: { code: 'invalid_hitl_payload' } } });
    await waitForEvent(
      flex,
      run.runId,
      (e) =>
        e.type === 'validation_error' &&
        (e.payload as { nodeId?: string }).nodeId === nodeId &&
        (e.payload as { scope: string }).scope === 'capability_output',
    );
    expect((await runEvents(flex, run.runId)).some((e) => e.type === 'hitl_resolved')).toBe(false);

    const human = [
      {
        headline: 'Team culture at AwesomePoster',
        body: 'Our people shape a human-first culture, from Tahoe retreats to daily wins.',
        callToAction: 'Join the team',
      },
      {
        headline: 'Grow your career',
        body: 'Grow with mentors, real ownership and a clear path to senior roles here.',
        callToAction: 'See open roles',
      },
    ];
    expect(
      (
        await operator.json('POST', '/api/v1/flex/hitl/resolve', {
          runId: run.runId,
          requestId,
          decision: 'approve',
          payload: { copyVariants: human },
        })
      ).status,
    ).toBe(200);
    const frames = await run.frames;
    const last = frames[frames.length - 1];
    expect(last).toMatchObject({ type: 'complete', payload: { output: { copyVariants: human } } });
    const completions = frames.filter((f) => f.type === 'node_complete' && f.nodeId === nodeId);
    expect(completions).toHaveLength(1);
    expect(
      await waitFor(
        async () => (await runEvents(flex, run.runId)).filter(isTerminal).length === 1 || undefined,
        5_000,
      ),
    ).toBe(true);
  }, 60_000);
});

/** Human capabilities (issue 4 item 4): invoking one raises a HITL request instead of a messaging call. */
describe('executor: a human capability', () => {
  let flex: EmbeddedFlex;
  let client: FlexClient;
  let operator: FlexClient;
  let stopAgents: (() => Promise<void>) | undefined;
  let invoked = 0;

  beforeAll(async () => {
    ({ flex, client, operator } = await startFlex());
    const agent = defineAgent({
      registration: {
        ...contentGeneratorAgent.registration,
        capabilityId: 'Human.copywriter',
        agentType: 'human',
        displayName: 'Human copywriter',
      },
      handle: async () => {
        invoked++;
        throw new Error('a human capability is never invoked over messaging');
      },
    });
    stopAgents = await startTestAgents(flex, [agent]);
  }, 60_000);

  afterAll(async () => {
    await stopAgents?.();
    await flex?.close();
  });

  it('the node waits for an operator whose validated payload becomes its output', async () => {
    const run = await openRun(client, envelopeWithPolicies([]));
    const request = await waitForEvent(flex, run.runId, (e) => e.type === 'hitl_request');
    const { requestId, nodeId } = request.payload as { requestId: string; nodeId: string };
    expect(request.payload).toMatchObject({
      mode: 'node_output',
      artifact: { capabilityId: 'Human.copywriter' },
    });
    const bad = await operator.json('POST', '/api/v1/flex/hitl/resolve', {
      runId: run.runId,
      requestId,
      decision: 'approve',
      payload: { copyVariants: 'x' },
    });
    expect(bad.status).toBe(400);
    const copy = [
      {
        headline: 'Life at AwesomePoster',
        body: 'A human-first team that builds automation people enjoy using every day.',
        callToAction: 'Meet the team',
      },
      {
        headline: 'Where careers grow',
        body: 'Ownership from day one, mentors who care, and room to grow into leadership.',
        callToAction: 'Apply today',
      },
    ];
    expect(
      (
        await operator.json('POST', '/api/v1/flex/hitl/resolve', {
          runId: run.runId,
          requestId,
          decision: 'approve',
          payload: { copyVariants: copy },
        })
      ).status,
    ).toBe(200);
    const frames = await run.frames;
    expect(frames[frames.length - 1]).toMatchObject({
      type: 'complete',
      payload: { output: { copyVariants: copy } },
    });
    expect(frames.find((f) => f.type === 'node_complete' && f.nodeId === nodeId)!.payload).toMatchObject({
      capabilityId: 'Human.copywriter',
    });
    expect(invoked).toBe(0);
  }, 60_000);
});
