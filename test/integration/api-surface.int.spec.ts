import { defineAgent } from '@flex/agent-sdk';
import { contentGeneratorAgent } from '@flex/agents-reference';
import { contentHash, FlexEventFrameSchema } from '@flex/contracts';
import type { Frame } from '@flex/testing';
import {
  envelopeWithPolicies,
  REVIEW,
  startAgents,
  startRunEndsFlex,
  WAIT_MS,
  WRITER,
  type RunEndsFlex,
} from '../../apps/flex/src/embedded/test-support/run-ends.harness';
import { OpenApiCheck } from './openapi-check';

/** The reference writer, saying what it does through its logger (lines recorded as `log` events). */
const talkativeWriter = defineAgent({
  registration: contentGeneratorAgent.registration,
  handle: async (invocation, ctx) => {
    ctx.logger.debug('not kept: debug stays with the agent');
    ctx.logger.info('writing variants', { facets: invocation.outputFacets });
    const output = await contentGeneratorAgent.handle(invocation, ctx);
    ctx.logger.warn('no model configured; wrote from templates');
    return output;
  },
});

async function ended(frames: Promise<Frame[]>): Promise<Frame[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the stream did not end')), WAIT_MS);
  });
  try {
    return await Promise.race([frames, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** GET runs, GET runs/:id, the streams' frames and GET /readyz, as a client meets them over HTTP. */
describe('the run API (embedded Flex over HTTP)', () => {
  let h: RunEndsFlex;
  let stopAgents: () => Promise<void>;
  let check: OpenApiCheck;
  const runIds: string[] = [];
  let frames: Frame[];

  beforeAll(async () => {
    h = await startRunEndsFlex();
    stopAgents = await startAgents(h.flex, talkativeWriter);
    check = new OpenApiCheck((await h.client.json('GET', '/api/v1/flex/openapi.json')).body);
    for (let i = 0; i < 3; i++) {
      const run = await h.client.start(envelopeWithPolicies());
      const got = await ended(run.ended);
      expect(got.at(-1)?.type).toBe('complete');
      runIds.push(run.runId);
      frames = got;
    }
  }, 120_000);

  afterAll(async () => {
    await stopAgents?.();
    await h?.close();
  });

  it('GET /readyz is 200 with its checks, as the document says; /healthz is alive', async () => {
    const ready = await fetch(`${h.flex.url}/readyz`);
    const body = await ready.json();
    expect(ready.status).toBe(200);
    expect(body).toMatchObject({
      status: 'ready',
      mode: 'embedded',
      checks: { migrations: { ok: true }, database: { ok: true }, projections: { ok: true } },
    });
    expect(check.errors('GET', '/readyz', 200, body)).toEqual([]);
    const health = await fetch(`${h.flex.url}/healthz`);
    expect(health.status).toBe(200);
    expect(check.errors('GET', '/healthz', 200, await health.json())).toEqual([]);
  });

  it.each([
    ['status=bogus', 'status', /status: .*planning/],
    ['status=completed,nope', 'status', /status/],
    ['limit=0', 'limit', /limit: expected an integer from 1 to 500/],
    ['limit=501', 'limit', /limit/],
    ['limit=ten', 'limit', /limit/],
    ['since=yesterday', 'since', /since/],
    ['until=2026-13-01', 'until', /until/],
    ['capability=a%20b', 'capability', /capability/],
    ['cursor=not-a-cursor', 'cursor', /cursor: not a cursor this server gave/],
    ['cursor=eyJ2IjoyfQ', 'cursor', /cursor/],
    ['stauts=failed', 'stauts', /unknown query parameter "stauts"/],
  ])('GET runs?%s is a 400 invalid_query naming %s', async (query, path, message) => {
    const res = await h.client.json('GET', `/api/v1/flex/runs?${query}`);
    expect(res).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_query', message: expect.stringMatching(message), details: { path } } },
    });
    expect(check.errors('GET', '/api/v1/flex/runs', 400, res.body)).toEqual([]);
  });

  it('GET runs pages newest first with an opaque cursor, each run once, and next null on the last page', async () => {
    const seen: string[] = [];
    let url = '/api/v1/flex/runs?limit=1';
    for (let page = 0; page < 10; page++) {
      const res = await h.client.json('GET', url);
      expect(res.status).toBe(200);
      expect(check.errors('GET', '/api/v1/flex/runs', 200, res.body)).toEqual([]);
      expect(res.body.runs.length).toBeLessThanOrEqual(1);
      seen.push(...res.body.runs.map((r: { runId: string }) => r.runId));
      if (res.body.next === null) break;
      expect(res.body.next).toMatch(/^[A-Za-z0-9_-]+$/);
      url = `/api/v1/flex/runs?limit=1&cursor=${res.body.next}`;
    }
    expect(seen).toEqual([...runIds].reverse());
    const all = (await h.client.json('GET', '/api/v1/flex/runs')).body;
    expect(all).toMatchObject({ next: null });
    expect(all.runs.map((r: { runId: string }) => r.runId)).toEqual(seen);
  });

  it('GET runs filters by status, capability and time, and a client sees only its own runs', async () => {
    const ids = async (query: string, client = h.client) =>
      (await client.json('GET', `/api/v1/flex/runs?${query}`)).body.runs.map(
        (r: { runId: string }) => r.runId,
      );
    const newestFirst = [...runIds].reverse();
    expect(await ids('status=completed')).toEqual(newestFirst);
    expect(await ids('status=failed,cancelled')).toEqual([]);
    expect(await ids(`capability=${encodeURIComponent(WRITER)}`)).toEqual(newestFirst);
    expect(await ids('capability=Nobody.serves')).toEqual([]);
    const second = (await h.client.json('GET', `/api/v1/flex/runs/${runIds[1]}`)).body.run.createdAt;
    expect(await ids(`since=${encodeURIComponent(second)}`)).toEqual(newestFirst.slice(0, 2));
    expect(await ids(`until=${encodeURIComponent(second)}`)).toEqual(newestFirst.slice(2));
    expect(await ids('', h.other)).toEqual([]);
    expect(await ids('status=completed', h.operator)).toEqual(newestFirst);
  });

  it('GET runs/:id has the spec’s run fields: envelope, schema hash, plan versions with pending nodes and planner, latest snapshot', async () => {
    const res = await h.client.json('GET', `/api/v1/flex/runs/${runIds[0]}`);
    expect(res.status).toBe(200);
    expect(check.errors('GET', '/api/v1/flex/runs/{id}', 200, res.body)).toEqual([]);
    const { run, planVersions, latestSnapshot, output, nodes } = res.body;
    const envelope = envelopeWithPolicies() as { objective: string; outputContract: { schema: unknown } };
    expect(run).toMatchObject({ runId: runIds[0], status: 'completed', objective: envelope.objective });
    expect(run.envelope.outputContract.schema).toEqual(envelope.outputContract.schema);
    expect(run.schemaHash).toBe(contentHash(envelope.outputContract.schema));
    const [v1] = planVersions;
    const planNodeIds = v1.plan.nodes.map((n: { id: string }) => n.id);
    expect(v1).toMatchObject({ version: 1, schemaHash: run.schemaHash, planner: v1.plan.metadata });
    expect(v1.pendingNodeIds).toEqual(planNodeIds);
    expect(v1.planner).toMatchObject({ plannerId: expect.any(String), determinism: 'full' });
    expect(latestSnapshot).toMatchObject({ version: 1, planHash: v1.planHash, edges: v1.plan.edges });
    expect(latestSnapshot.nodes.map((n: { id: string }) => n.id)).toEqual(planNodeIds);
    const skippedOrDone = nodes.filter((n: { status: string }) =>
      ['completed', 'skipped'].includes(n.status),
    );
    expect(latestSnapshot.pendingNodeIds).toEqual(
      planNodeIds.filter((id: string) => !skippedOrDone.some((n: { nodeId: string }) => n.nodeId === id)),
    );
    const writer = nodes.find((n: { capabilityId: string }) => n.capabilityId === WRITER);
    expect(latestSnapshot.facets.copyVariants).toEqual({
      value: writer.output.copyVariants,
      nodeId: writer.nodeId,
    });
    expect(output.facetProvenance).toContainEqual({
      facet: 'copyVariants',
      nodeId: expect.any(String),
    });
  });

  it('streams what the agent logged as `log` frames of its node (info and above), before its node_complete', async () => {
    const logs = frames.filter((f) => f.type === 'log');
    expect(logs.map((f) => f.payload.message)).toEqual([
      'writing variants',
      'no model configured; wrote from templates',
    ]);
    const writerDone = frames.find((f) => f.type === 'node_complete' && f.payload.capabilityId === WRITER);
    for (const log of logs) {
      expect(log).toMatchObject({
        nodeId: writerDone?.nodeId,
        payload: { source: 'agent', attempt: 1, capabilityId: WRITER },
        message: expect.stringContaining(`agent ${writerDone?.nodeId}: `),
      });
      expect(log.position).toBeLessThan(writerDone?.position ?? 0);
      const { position: _position, ...frame } = log;
      expect(FlexEventFrameSchema.safeParse(frame).success).toBe(true);
      expect(check.componentErrors('FlexEventFrame', frame)).toEqual([]);
    }
    expect(logs[0].payload).toMatchObject({ level: 'info', data: { facets: ['copyVariants'] } });
    expect(logs[1].payload).toMatchObject({ level: 'warn' });
  });

  it('policy_triggered frames carry the spec’s actionDetails', async () => {
    const run = await h.client.start(envelopeWithPolicies([REVIEW]));
    const hitl = await h.waitForEvent(run.runId, (e) => e.type === 'hitl_request');
    const stored = (await h.events(run.runId)).find((e) => e.type === 'policy_triggered');
    expect(stored?.payload).toMatchObject({
      policyId: 'review',
      actionDetails: { type: 'hitl', rationale: 'look first' },
    });
    expect(stored?.payload).not.toHaveProperty('action');
    const cancel = await h.client.json('POST', `/api/v1/flex/runs/${run.runId}/cancel`, {});
    expect(cancel.status).toBe(200);
    expect(check.errors('POST', '/api/v1/flex/runs/{id}/cancel', 200, cancel.body)).toEqual([]);
    const streamed = await ended(run.ended);
    const triggered = streamed.find((f) => f.type === 'policy_triggered');
    expect(triggered?.payload.actionDetails).toEqual({ type: 'hitl', rationale: 'look first' });
    expect(triggered?.message).toBe('policy review → hitl');
    expect(hitl.type).toBe('hitl_request');
  });

  it('answers the other routes as documented', async () => {
    const capabilities = await h.client.json('GET', '/api/v1/flex/capabilities');
    expect(capabilities.status).toBe(200);
    expect(check.errors('GET', '/api/v1/flex/capabilities', 200, capabilities.body)).toEqual([]);
    const missing = await h.client.json('GET', '/api/v1/flex/runs/run_nope');
    expect(missing.status).toBe(404);
    expect(check.errors('GET', '/api/v1/flex/runs/{id}', 404, missing.body)).toEqual([]);
  });
});
