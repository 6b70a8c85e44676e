import type { FlexDatabase } from '@flex/event-store';
import type { FlexClient } from '@flex/testing';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { ChaosCluster } from './chaos-cluster';
import type { Invocation } from '../distributed-harness';
import { sampleEnvelope } from '../sample-run';
import { chaosNumber } from './chaos-support';

/**
 * What the process-level chaos scenarios share: submitting runs, waiting (bounded) for them to end
 * in the store, and reading the agents' call logs for duplicate effects.
 */

export const WRITER = 'ContentGeneratorAgent.linkedinVariants';
export const HELPERS = 'StrategyManagerAgent.briefing,QualityAssuranceAgent.contentReview';

/** The sample run, its writer node steered to the ContentGeneratorAgent (not a renamed backup of it). */
export function writerEnvelope(): unknown {
  const envelope = sampleEnvelope();
  envelope.policies = { ...envelope.policies, planner: { selection: { prefer: ['ContentGeneratorAgent'] } } };
  return envelope;
}

/** The answer to one POST run.stream: its status and run id (the stream is left at once). */
export interface Submitted {
  status: number;
  runId?: string;
  /** The request failed before any answer (connection refused, reset, timed out). */
  error?: string;
}

/**
 * POST run.stream, bounded by `timeoutMs`; the SSE body is not read (the run goes on without it). With
 * `idempotencyKey`, a retry of the same submission (at any gateway) starts no second run.
 */
export async function submitRun(
  client: FlexClient,
  envelope: unknown,
  timeoutMs = 30_000,
  idempotencyKey?: string,
): Promise<Submitted> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const res = await fetch(`${client.baseUrl}/api/v1/flex/run.stream`, {
      method: 'POST',
      headers: client.headers({
        Accept: 'text/event-stream',
        ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
      }),
      body: JSON.stringify(envelope),
      signal: abort.signal,
    });
    const runId = res.headers.get('x-flex-run-id') ?? undefined;
    await res.body?.cancel().catch(() => undefined);
    return { status: res.status, ...(res.ok && runId ? { runId } : {}) };
  } catch (error) {
    return { status: 0, error: (error as Error).message };
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/** How each of `runIds` ended (its terminal event type), read from the store. */
export async function endings(db: FlexDatabase, runIds: readonly string[]): Promise<Map<string, string>> {
  if (runIds.length === 0) return new Map();
  const { rows } = await sql<{ stream_id: string; type: string }>`
    select stream_id, type from events
    where type in ('complete', 'run_failed', 'run_cancelled')
      and stream_id in (${sql.join(runIds.map((id) => `run-${id}`))})`.execute(db.db);
  return new Map(rows.map((row) => [row.stream_id.replace(/^run-/, ''), row.type]));
}

/**
 * Until every run of `runIds` has a terminal event in the store (polling, at most `timeoutMs`).
 * Fails naming the runs still open and the last events of the first few: a run that never ends is
 * what these scenarios look for.
 */
export async function awaitEndings(
  db: FlexDatabase,
  runIds: readonly string[],
  timeoutMs: number,
  describe: () => string = () => '',
): Promise<Map<string, string>> {
  const deadline = Date.now() + timeoutMs;
  // A query that fails (the pool's connections cut by a Postgres restart) counts as "not yet".
  const poll = () => endings(db, runIds).catch(() => new Map<string, string>());
  let ended = await poll();
  while (ended.size < runIds.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    ended = await poll();
  }
  if (ended.size === runIds.length) return ended;
  const open = runIds.filter((id) => !ended.has(id));
  const tails = await Promise.all(open.slice(0, 3).map((id) => lastEvents(db, id)));
  throw new Error(
    `${open.length} of ${runIds.length} runs did not end within ${timeoutMs} ms: ${open.join(', ')}\n` +
      `${tails.join('\n')}\n${describe()}`,
  );
}

async function lastEvents(db: FlexDatabase, runId: string): Promise<string> {
  const { rows } = await sql<{ type: string; payload: unknown; recorded_at: Date }>`
    select type, payload, recorded_at from events where stream_id = ${`run-${runId}`} order by version desc limit 8`.execute(
    db.db,
  );
  const line = rows
    .reverse()
    .map((r) => `${r.recorded_at.toISOString()} ${r.type} ${JSON.stringify(r.payload).slice(0, 160)}`)
    .join('\n  ');
  return `run ${runId}:\n  ${line}`;
}

/** The agents' calls, by idempotency key (`runId:nodeId:attempt`): the duplicate effects a fault may cause. */
export interface CallFigures {
  /** Calls started (an agent began work on a key). */
  started: number;
  /** Calls that ran to completion. */
  completed: number;
  /** Calls started and never finished (the agent was killed, or hung, or its caller gave up). */
  abandoned: number;
  /** Keys that ran to completion more than once: the same attempt executed twice. Must be 0. */
  completedTwice: number;
  /** Keys started more than once (a redelivered attempt reaching the agent again). */
  startedTwice: number;
}

export function callFigures(invocations: readonly Invocation[]): CallFigures {
  const starts = tally(invocations.filter((i) => i.event === 'start').map((i) => i.key));
  const ends = tally(invocations.filter((i) => i.event === 'end').map((i) => i.key));
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return {
    started: sum(starts),
    completed: sum(ends),
    abandoned: [...starts.keys()].filter((key) => !ends.has(key)).length,
    completedTwice: [...ends.values()].filter((n) => n > 1).length,
    startedTwice: [...starts.values()].filter((n) => n > 1).length,
  };
}

function tally(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

/** The attempt number in an idempotency key `runId:nodeId:attempt`. */
export const attemptOf = (key: string): number => Number(key.split(':').at(-1));

/** Which way of the repair order the runs took: retries, another capability, a human; from the store. */
export interface RepairFigures {
  /** Failed attempts recorded (`node_error`). */
  failedAttempts: number;
  /** Attempts after the first of a node (`node_start` with attempt > 1). */
  retries: number;
  /** Node starts on each capability. */
  startsByCapability: Record<string, number>;
  hitlRequests: number;
}

export async function repairFigures(db: FlexDatabase, runIds: readonly string[]): Promise<RepairFigures> {
  const { rows } = await sql<{ type: string; payload: { attempt?: number; capabilityId?: string } }>`
    select type, payload from events
    where type in ('node_error', 'node_start', 'hitl_request')
      and stream_id in (${sql.join(runIds.map((id) => `run-${id}`))})`.execute(db.db);
  const figures: RepairFigures = { failedAttempts: 0, retries: 0, startsByCapability: {}, hitlRequests: 0 };
  for (const { type, payload } of rows) {
    if (type === 'node_error') figures.failedAttempts++;
    if (type === 'hitl_request') figures.hitlRequests++;
    if (type !== 'node_start') continue;
    if ((payload.attempt ?? 1) > 1) figures.retries++;
    const capability = payload.capabilityId ?? 'human';
    figures.startsByCapability[capability] = (figures.startsByCapability[capability] ?? 0) + 1;
  }
  return figures;
}

/** Runs kept in flight at once by the submitters (FLEX_CHAOS_IN_FLIGHT). */
export const IN_FLIGHT = chaosNumber('FLEX_CHAOS_IN_FLIGHT', { full: 20, ci: 4 });

/**
 * `runs` runs, `inFlight` at a time, each submitted to a gateway in turn with its own
 * Idempotency-Key and retried (bounded) at the next gateway while none answers; a submitter
 * takes its next run once its last one has ended.
 */
export async function submitRunsUnderFaults(
  chaos: ChaosCluster,
  runs: number,
  inFlight: number,
): Promise<{ runIds: string[]; retries: number }> {
  const { cluster, db } = chaos;
  const logs = () => chaos.logs();
  const runIds: string[] = [];
  let next = 0;
  let retries = 0;
  const submitter = async () => {
    for (let n = next++; n < runs; n = next++) {
      const key = randomUUID();
      let runId: string | undefined;
      for (let attempt = 0; attempt < 40 && !runId; attempt++) {
        const gateways = cluster.instances('gateway');
        const gateway = gateways[(n + attempt) % gateways.length].name;
        const answer = await submitRun(cluster.client(gateway), writerEnvelope(), 15_000, key);
        runId = answer.runId;
        // No answer, or a server error (its gateway stopping, or not ready yet): try the next one.
        if (!runId && answer.status > 0 && answer.status < 500)
          throw new Error(`run ${n} was refused with ${answer.status}\n${logs()}`);
        if (!runId) {
          retries++;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
      if (!runId) throw new Error(`run ${n} found no gateway to take it in 40 tries\n${logs()}`);
      runIds.push(runId);
      await awaitEndings(db, [runId], 180_000, logs);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, runs) }, submitter));
  return { runIds, retries };
}

/** Nodes completed twice (from the store) and agent calls completed twice under one key (from the agents' logs). */
export async function faultFigures(chaos: ChaosCluster, runIds: readonly string[]) {
  const { cluster, db } = chaos;
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from (
      select stream_id, payload->>'nodeId' from events
      where type = 'node_complete' and stream_id in (${sql.join(runIds.map((id) => `run-${id}`))})
      group by 1, 2 having count(*) > 1) twice`.execute(db.db);
  const ours = new Set(runIds);
  const calls = callFigures(cluster.invocations().filter((i) => ours.has(i.key.split(':')[0])));
  return {
    nodesCompletedTwice: rows[0].n,
    agentCalls: calls.started,
    callsCompletedTwice: calls.completedTwice,
    callsStartedTwice: calls.startedTwice,
  };
}
