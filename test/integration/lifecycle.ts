import { TERMINAL_EVENT_TYPES } from '@flex/contracts';
import { loadCheckpoint, type StoredEvent } from '@flex/event-store';
import { evolveRun, initialRunState, pendingHitlRequests, type RunState } from '@flex/run-model';
import { parseSse, waitFor, type FlexClient, type Frame } from '@flex/testing';
import type { EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { runEvents } from './embedded-run';

/** Generous: a loaded 2-core machine runs these next to other suites. */
export const WAIT_MS = 30_000;

const isTerminalType = (type: string) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);

/** Poll the run's stream until `match` holds on it. */
export function waitForEvents(
  flex: EmbeddedFlex,
  runId: string,
  what: string,
  match: (events: StoredEvent[]) => boolean,
): Promise<StoredEvent[]> {
  return waitFor(
    async () => {
      const events = await runEvents(flex, runId);
      return match(events) ? events : undefined;
    },
    WAIT_MS,
    () => `run ${runId}: ${what}`,
  );
}

/** The run's stream once it has ended. */
export function waitForEnd(flex: EmbeddedFlex, runId: string): Promise<StoredEvent[]> {
  return waitForEvents(flex, runId, 'never ended', (events) => events.some((e) => isTerminalType(e.type)));
}

/**
 * The executor has settled every event of the stream up to `position` (its consumer's checkpoint
 * is past it): whatever it decides on them is stored by now.
 */
export function executorSettled(flex: EmbeddedFlex, position: number): Promise<true> {
  return waitFor(
    async () =>
      (await loadCheckpoint(flex.runtime.database.db, 'bus:executor')).position >= position
        ? true
        : undefined,
    WAIT_MS,
    () => `the executor never got past position ${position}`,
  );
}

/**
 * The lifecycle rules every run keeps (docs/lifecycle.md): exactly one terminal event, the last
 * one; never `complete` while a HITL request is pending.
 */
export function expectEndedOnce(
  events: readonly StoredEvent[],
  type: 'complete' | 'run_failed' | 'run_cancelled',
): void {
  const terminal = events.filter((e) => isTerminalType(e.type));
  expect(terminal.map((e) => e.type)).toEqual([type]);
  expect(events[events.length - 1].type).toBe(type);
  let state: RunState = initialRunState();
  for (const event of events) {
    if (event.type === 'complete') expect(pendingHitlRequests(state)).toEqual([]);
    state = evolveRun(state, event);
  }
}

export const types = (events: ReadonlyArray<{ type: string }>) => events.map((e) => e.type);

export const indexOf = (events: readonly StoredEvent[], match: (e: StoredEvent) => boolean): number =>
  events.findIndex(match);

/** `POST hitl/resolve` as an operator; the body on anything but 200. */
export async function resolve(
  operator: FlexClient,
  runId: string,
  requestId: string,
  decision: 'approve' | 'reject',
  payload?: unknown,
) {
  const res = await operator.json('POST', '/api/v1/flex/hitl/resolve', {
    runId,
    requestId,
    decision,
    ...(payload === undefined ? {} : { payload }),
  });
  if (res.status !== 200) throw new Error(`hitl/resolve ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** `POST runs/:id/policies/:policyId/trigger` as an operator: the events it appended. */
export async function trigger(
  operator: FlexClient,
  runId: string,
  policyId: string,
): Promise<Array<{ type: string }>> {
  const res = await operator.json('POST', `/api/v1/flex/runs/${runId}/policies/${policyId}/trigger`);
  if (res.status !== 200) throw new Error(`trigger ${policyId} ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.events;
}

/** `POST run.resume` (SSE): the status, and the frames once the server ends the stream. */
export async function resume(
  client: FlexClient,
  runId: string,
  expectedPlanVersion: number,
): Promise<{ status: number; frames: Promise<Frame[]>; body?: unknown }> {
  const res = await fetch(`${client.baseUrl}/api/v1/flex/run.resume`, {
    method: 'POST',
    headers: client.headers({ Accept: 'text/event-stream' }),
    body: JSON.stringify({ runId, expectedPlanVersion }),
  });
  if (res.status !== 200) return { status: res.status, frames: Promise.resolve([]), body: await res.json() };
  return { status: res.status, frames: res.text().then(parseSse) };
}

/** The payload of the run's stored events of `type`. */
export function payloads<T = Record<string, unknown>>(events: readonly StoredEvent[], type: string): T[] {
  return events.filter((e) => e.type === type).map((e) => e.payload as T);
}
