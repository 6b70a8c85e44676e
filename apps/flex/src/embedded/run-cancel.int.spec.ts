import {
  envelopeWithPolicies,
  executorSettled,
  HeldWriter,
  isTerminalEvent,
  REVIEW,
  startAgents,
  startRunEndsFlex,
  type RunEndsFlex,
  ended,
} from './test-support/run-ends.harness';

const cancelPath = (runId: string) => `/api/v1/flex/runs/${runId}/cancel`;
const isWriterStart = (e: { type: string; payload: unknown }) =>
  e.type === 'node_start' && (e.payload as { kind?: string }).kind === 'execution';

/**
 * `POST runs/:id/cancel` over HTTP/SSE against an embedded Flex: cancel is terminal wherever the run
 * is, live streams end on `run_cancelled`, and nothing that was pending moves the run afterwards.
 */
describe('cancelling a run (embedded, HTTP and SSE)', () => {
  let h: RunEndsFlex;
  let stopAgents: () => Promise<void>;
  const writer = new HeldWriter();

  beforeAll(async () => {
    h = await startRunEndsFlex({ FLEX_AGENT_TIMEOUT_MS: '30000' });
    stopAgents = await startAgents(h.flex, writer.definition);
  }, 60_000);

  afterEach(() => writer.passAll());

  afterAll(async () => {
    await stopAgents?.();
    await h?.close();
  });

  it('cancel a running run: its streams end with run_cancelled, the read model says cancelled, a late agent result changes nothing', async () => {
    const run = await h.client.start(envelopeWithPolicies());
    const watcher = await h.operator.follow(run.runId);
    await writer.invoked(run.runId);
    await h.waitForEvent(run.runId, isWriterStart);

    const res = await h.client.json('POST', cancelPath(run.runId), { reason: 'changed my mind' });
    expect(res).toMatchObject({
      status: 200,
      body: { ok: true, runId: run.runId, status: 'cancelled', alreadyCancelled: false },
    });
    const frames = await ended(run);
    const last = frames[frames.length - 1];
    expect(last).toMatchObject({
      type: 'run_cancelled',
      id: res.body.event.id,
      position: res.body.event.position,
      message: expect.stringMatching(/^run cancelled by .+: changed my mind$/),
      payload: { reason: 'changed my mind', from: 'running', closedHitlRequests: [] },
    });
    expect((await ended(watcher)).map((f) => f.id)).toEqual(frames.map((f) => f.id));
    expect((await h.client.json('GET', `/api/v1/flex/runs/${run.runId}`)).body.run).toMatchObject({
      status: 'cancelled',
      lastEventType: 'run_cancelled',
    });

    const atCancel = await h.events(run.runId);
    await writer.release(run.runId); // the agent answers after all
    await executorSettled(h.flex, res.body.event.position);
    expect(await h.events(run.runId)).toEqual(atCancel);
    expect(atCancel.filter(isTerminalEvent).map((e) => e.type)).toEqual(['run_cancelled']);
    expect(atCancel[atCancel.length - 1].type).toBe('run_cancelled');
  }, 90_000);

  it('a timer due after the cancel (the run deadline) does nothing', async () => {
    const deadline = {
      id: 'deadline',
      trigger: { kind: 'onTimeout', ms: 1_500 },
      action: { type: 'fail', message: 'late' },
    };
    const run = await h.client.start(envelopeWithPolicies([REVIEW, deadline]));
    await h.waitForEvent(run.runId, (e) => e.type === 'hitl_request');
    const res = await h.client.json('POST', cancelPath(run.runId));
    expect(res.status).toBe(200);
    const atCancel = await h.events(run.runId);
    // The deadline is a delayed redelivery the executor holds: its checkpoint passes the cancel only
    // once that redelivery has come (1.5 s after the start) and been handled.
    await executorSettled(h.flex, res.body.event.position);
    const after = await h.events(run.runId);
    expect(Date.now() - Date.parse(after[0].timestamp)).toBeGreaterThanOrEqual(1_500);
    expect(after).toEqual(atCancel);
    expect(
      after
        .filter((e) => e.type === 'policy_triggered')
        .map((e) => (e.payload as { policyId: string }).policyId),
    ).toEqual(['review']);
    await ended(run);
  }, 90_000);

  it('cancel a run waiting for a human: the request is closed with it, and a later resolve is 409', async () => {
    const run = await h.client.start(envelopeWithPolicies([REVIEW]));
    await h.waitForEvent(run.runId, (e) => e.type === 'hitl_request');

    const res = await h.operator.json('POST', cancelPath(run.runId), {});
    expect(res).toMatchObject({ status: 200, body: { alreadyCancelled: false } });
    const frames = await ended(run);
    expect(frames[frames.length - 1]).toMatchObject({
      type: 'run_cancelled',
      payload: { from: 'awaiting_hitl', closedHitlRequests: ['hitl-1'] },
    });
    expect(frames[frames.length - 1].payload).not.toHaveProperty('reason');

    const detail = (await h.client.json('GET', `/api/v1/flex/runs/${run.runId}`)).body;
    expect(detail.run.status).toBe('cancelled');
    expect(detail.hitlRequests).toEqual([
      expect.objectContaining({ requestId: 'hitl-1', status: 'cancelled' }),
    ]);
    const stored = (await h.events(run.runId)).length;
    const resolve = await h.operator.json('POST', '/api/v1/flex/hitl/resolve', {
      runId: run.runId,
      requestId: 'hitl-1',
      decision: 'approve',
    });
    expect(resolve).toMatchObject({ status: 409, body: { error: { code: 'invalid_run_state' } } });
    const resume = await h.client.json('POST', '/api/v1/flex/run.resume', {
      runId: run.runId,
      expectedPlanVersion: 1,
    });
    expect(resume).toMatchObject({ status: 409, body: { error: { code: 'invalid_run_state' } } });
    expect((await h.events(run.runId)).length).toBe(stored);
  }, 90_000);

  it('cancel twice: the second answers 200 alreadyCancelled with the same event, and appends nothing', async () => {
    const run = await h.client.start(envelopeWithPolicies([REVIEW]));
    await h.waitForEvent(run.runId, (e) => e.type === 'hitl_request');
    const first = await h.client.json('POST', cancelPath(run.runId));
    await ended(run);
    const stored = await h.events(run.runId);
    const second = await h.client.json('POST', cancelPath(run.runId), { reason: 'again' });
    expect(second).toEqual({ status: 200, body: { ...first.body, alreadyCancelled: true } });
    expect(await h.events(run.runId)).toEqual(stored);
    const concurrent = await Promise.all([1, 2, 3].map(() => h.operator.json('POST', cancelPath(run.runId))));
    expect(concurrent.map((r) => r.body.alreadyCancelled)).toEqual([true, true, true]);
    expect((await h.events(run.runId)).filter(isTerminalEvent)).toHaveLength(1);
  }, 90_000);

  it('of concurrent cancels of a live run, exactly one appends run_cancelled', async () => {
    const run = await h.client.start(envelopeWithPolicies([REVIEW]));
    await h.waitForEvent(run.runId, (e) => e.type === 'hitl_request');
    const answers = await Promise.all(
      [h.client, h.operator, h.client, h.operator].map((c) => c.json('POST', cancelPath(run.runId))),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers.filter((a) => !a.body.alreadyCancelled)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.event.id)).size).toBe(1);
    await ended(run);
    expect((await h.events(run.runId)).filter((e) => e.type === 'run_cancelled')).toHaveLength(1);
  }, 90_000);

  it('cancel an ended run: 409 run_already_ended, and nothing changes', async () => {
    const run = await h.client.start(envelopeWithPolicies());
    writer.pass(run.runId);
    const frames = await ended(run);
    expect(frames[frames.length - 1].type).toBe('complete');
    const stored = await h.events(run.runId);
    const res = await h.client.json('POST', cancelPath(run.runId), { reason: 'too late' });
    expect(res).toMatchObject({
      status: 409,
      body: { error: { code: 'run_already_ended', message: expect.stringContaining('(completed)') } },
    });
    expect(await h.events(run.runId)).toEqual(stored);
    expect((await h.client.json('GET', `/api/v1/flex/runs/${run.runId}`)).body.run.status).toBe('completed');
  }, 90_000);

  it("cancel someone else's run: 404 for another client (as if it did not exist), 403 for an agent; an operator may", async () => {
    const run = await h.client.start(envelopeWithPolicies([REVIEW]));
    await h.waitForEvent(run.runId, (e) => e.type === 'hitl_request');
    expect(await h.other.json('POST', cancelPath(run.runId))).toMatchObject({
      status: 404,
      body: { error: { code: 'run_not_found' } },
    });
    expect(await h.agent.json('POST', cancelPath(run.runId))).toMatchObject({
      status: 403,
      body: { error: { code: 'forbidden' } },
    });
    expect((await h.events(run.runId)).some(isTerminalEvent)).toBe(false);
    expect((await h.operator.json('POST', cancelPath(run.runId))).status).toBe(200);
    await ended(run);
  }, 90_000);

  it('a bad request is a 400 naming the path (or a 404 for an unknown run), and changes nothing', async () => {
    const run = await h.client.start(envelopeWithPolicies([REVIEW]));
    await h.waitForEvent(run.runId, (e) => e.type === 'hitl_request');
    const stored = await h.events(run.runId);
    // Text Postgres cannot store is refused for every body, before any handler reads it.
    const cases: Array<[unknown, string, RegExp]> = [
      [{ reason: 5 }, 'invalid_request', /^reason: /],
      [{ reason: '' }, 'invalid_request', /^reason: /],
      [{ why: 'x' }, 'invalid_request', /^why: unknown field/],
      [{ reason: 'stop \u0000 now' }, 'unstorable_text', /^reason: contains U\+0000/],
      [
        { reason: `cut ${'\u{1F600}'.slice(0, 1)}` },
        'unstorable_text',
        /^reason: contains an unpaired UTF-16 surrogate/,
      ],
      ['stop', 'invalid_request', /expected object/],
    ];
    for (const [body, code, message] of cases) {
      const res = await h.client.json('POST', cancelPath(run.runId), body);
      expect(res).toMatchObject({
        status: 400,
        body: { error: { code, message: expect.stringMatching(message) } },
      });
    }
    expect(await h.client.json('POST', cancelPath('run_nope'))).toMatchObject({
      status: 404,
      body: { error: { code: 'run_not_found' } },
    });
    expect(await h.client.json('POST', cancelPath('bad id!'))).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_run_id' } },
    });
    expect(await h.events(run.runId)).toEqual(stored);
    expect(
      (await h.client.json('POST', cancelPath(run.runId), { reason: 'done testing \u{1F600}' })).status,
    ).toBe(200);
    const frames = await ended(run);
    expect(frames[frames.length - 1].payload.reason).toBe('done testing \u{1F600}');
  }, 90_000);
});
