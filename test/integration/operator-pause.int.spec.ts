import { INTERNAL_EVENT_TYPES } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { parseSse } from '@flex/testing';
import {
  envelopeWithPolicies,
  executorSettled,
  HeldWriter,
  REVIEW,
  startAgents,
  startRunEndsFlex,
  WRITER,
  type RunEndsFlex,
} from '../../apps/flex/src/embedded/test-support/run-ends.harness';
import { OpenApiCheck } from './openapi-check';

/** The operator's principal id (a token's id, never the token). */
const OPERATOR = expect.stringMatching(/^tok_/);
const PAUSE_PATH = '/api/v1/flex/runs/{id}/pause';
const types = (events: ReadonlyArray<{ type: string }>) => events.map((e) => e.type);
const key = (e: { position: number; type: string; id: string }) => `${e.position}:${e.type}:${e.id}`;
const visible = (events: readonly StoredEvent[]) =>
  events.filter((e) => !(INTERNAL_EVENT_TYPES as readonly string[]).includes(e.type)).map(key);

/**
 * `POST runs/:id/pause` (an operator pauses a run without a policy) and `GET runs/:id/events?follow=false`
 * (the stored events, then the end), over HTTP on an embedded Flex: the executor starts nothing while
 * the run is paused, the answers and refusals are the ones the OpenAPI document describes.
 */
describe('an operator pauses a run without a policy', () => {
  let h: RunEndsFlex;
  let stopAgents: () => Promise<void>;
  let check: OpenApiCheck;
  const writer = new HeldWriter();

  beforeAll(async () => {
    h = await startRunEndsFlex();
    stopAgents = await startAgents(h.flex, writer.definition);
    check = new OpenApiCheck((await h.client.json('GET', '/api/v1/flex/openapi.json')).body);
  }, 120_000);

  afterAll(async () => {
    writer.passAll();
    await stopAgents?.();
    await h?.close();
  });

  const pause = (runId: string, body?: unknown, as = h.operator) =>
    as.json('POST', `/api/v1/flex/runs/${runId}/pause`, body);
  const stored = async (runId: string, query = '?follow=false', lastEventId?: number) => {
    const last: Record<string, string> =
      lastEventId === undefined ? {} : { 'Last-Event-ID': String(lastEventId) };
    const res = await fetch(`${h.flex.url}/api/v1/flex/runs/${runId}/events${query}`, {
      headers: h.client.headers(last),
    });
    const text = await res.text();
    return { status: res.status, text, body: res.status === 200 ? undefined : JSON.parse(text) };
  };

  it('paused while a node runs: the node finishes, nothing else starts or completes until the resume', async () => {
    const run = await h.client.start(envelopeWithPolicies());
    await writer.invoked(run.runId);
    const paused = await pause(run.runId, { reason: 'checking the brief' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ ok: true, runId: run.runId, status: 'paused' });
    expect(check.errors('POST', PAUSE_PATH, 200, paused.body)).toEqual([]);
    // run.stream hands the run over on the pause, as it does for a policy's pause.
    expect(types(await run.ended).at(-1)).toBe('run_paused');

    await writer.release(run.runId);
    const done = await h.waitForEvent(
      run.runId,
      (e) =>
        e.type === 'node_complete' &&
        e.payload !== null &&
        (e.payload as { capabilityId?: string }).capabilityId === WRITER,
    );
    await executorSettled(h.flex, done.position);
    const events = await h.events(run.runId);
    const at = events.findIndex((e) => e.id === paused.body.event.id);
    expect(events[at]).toMatchObject({
      type: 'run_paused',
      position: paused.body.event.position,
      payload: { reason: 'checking the brief', pausedBy: OPERATOR },
    });
    const whilePaused = types(events.slice(at + 1));
    expect(whilePaused).toContain('node_complete');
    expect(whilePaused).not.toContain('node_start');
    expect(whilePaused).not.toContain('complete');
    expect((await h.client.json('GET', `/api/v1/flex/runs/${run.runId}`)).body.run.status).toBe('paused');

    // follow=false: what is stored now, then the stream ends although the run has not.
    const now = await stored(run.runId);
    expect(now.status).toBe(200);
    expect(parseSse(now.text).map(key)).toEqual(visible(await h.events(run.runId)));
    const tail = await stored(run.runId, '?follow=false', done.position - 1);
    expect(parseSse(tail.text).map(key)).toEqual(visible(events.filter((e) => e.position >= done.position)));

    const again = await pause(run.runId);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_run_state');
    expect(check.errors('POST', PAUSE_PATH, 409, again.body)).toEqual([]);

    const resumed = await h.client.resume(run.runId, 1);
    expect(types(await resumed.ended)).toEqual(expect.arrayContaining(['run_resumed', 'complete']));
  }, 120_000);

  it('a run waiting for a human: paused, its request still pending; a decision while paused waits for the resume', async () => {
    const run = await h.client.start(envelopeWithPolicies([REVIEW]));
    await h.waitForEvent(run.runId, (e) => e.type === 'hitl_request');
    const paused = await pause(run.runId);
    expect(paused.status).toBe(200);
    const approved = await h.operator.json('POST', '/api/v1/flex/hitl/resolve', {
      runId: run.runId,
      requestId: 'hitl-1',
      decision: 'approve',
    });
    expect(approved.body).toMatchObject({ takesEffect: 'on_resume' });
    const decided = await h.waitForEvent(run.runId, (e) => e.type === 'hitl_resolved');
    await executorSettled(h.flex, decided.position);
    const events = await h.events(run.runId);
    expect(events.find((e) => e.type === 'run_paused')?.payload).toMatchObject({
      reason: 'paused by an operator',
      pausedBy: OPERATOR,
    });
    expect(types(events)).not.toContain('node_start');
    writer.pass(run.runId);
    const resumed = await h.client.resume(run.runId, 1);
    expect(types(await resumed.ended).at(-1)).toBe('complete');
  }, 120_000);

  it('refuses what it cannot do, as documented, and appends nothing', async () => {
    const run = await h.client.start(envelopeWithPolicies());
    writer.pass(run.runId);
    expect(types(await run.ended).at(-1)).toBe('complete');
    const before = (await h.events(run.runId)).length;
    const refusals: Array<[unknown, number, string, typeof h.operator?]> = [
      [undefined, 409, 'invalid_run_state'],
      [{ reason: '' }, 400, 'invalid_request'],
      [{ reason: 'x', why: 'y' }, 400, 'invalid_request'],
      [{}, 403, 'forbidden', h.client],
    ];
    for (const [body, status, code, as] of refusals) {
      const res = await pause(run.runId, body, as);
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status, code });
      expect(check.errors('POST', PAUSE_PATH, status, res.body)).toEqual([]);
    }
    const missing = await pause('run_nope');
    expect(missing.status).toBe(404);
    expect(check.errors('POST', PAUSE_PATH, 404, missing.body)).toEqual([]);
    expect(await h.events(run.runId)).toHaveLength(before);
  }, 120_000);

  it('GET runs/:id/events validates follow like the other query parameters', async () => {
    const run = await h.client.start(envelopeWithPolicies());
    writer.pass(run.runId);
    const frames = await run.ended;
    for (const [query, path] of [
      ['?follow=no', 'follow'],
      ['?follow=', 'follow'],
      ['?tail=1', 'tail'],
    ]) {
      const res = await stored(run.runId, query);
      expect({ status: res.status, code: res.body.error.code, path: res.body.error.details.path }).toEqual({
        status: 400,
        code: 'invalid_query',
        path,
      });
      expect(res.body.error.message).toContain(path);
    }
    const whole = await stored(run.runId, '?follow=true');
    expect(parseSse(whole.text).map(key)).toEqual(frames.map(key));
  }, 120_000);
});
