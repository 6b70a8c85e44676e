import {
  ACTION_TYPES,
  CAPABILITY_EVENT_TYPES,
  EVENT_PAYLOAD_SCHEMAS,
  POLICY_TRIGGER_KINDS,
} from '@flex/contracts';
import { verifyExport, type StoredEvent } from '@flex/event-store';
import { verifyReplay } from '@flex/replay';
import { evaluatePolicies, evolveRun, initialRunState } from '@flex/run-model';
import { retryPolicy } from '@flex/executor';
import { decideReaction } from '../services/executor/src/run/run.decide';
import { flexReplayAdapters } from '../apps/flex/src/replay/replay-adapters';
import { loadCorpus, type CorpusRun } from './replay-corpus/corpus';

/**
 * The replay corpus (docs/AUDIT.md, "Verified replay"): recorded runs of every path, each decided
 * again by the current planner, validator, executor, policy engine and gateway commands. A change
 * to decision logic that alters a recorded run fails here, naming the event, the field and the
 * component. Meant changes: re-record with `npm run corpus:record`.
 */
const corpus = loadCorpus();
const files = corpus.map((r) => r.file);

describe('replay corpus', () => {
  it('holds recorded runs', () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
  });

  it.each(files)('%s re-decides to the same events', (file) => {
    const run = corpus.find((r) => r.file === file) as CorpusRun;
    const report = verifyReplay(run.events, flexReplayAdapters(run.settings));
    expect(report.divergence).toBeUndefined();
    expect(report.verified).toBe(run.events.length);
    // Only outside facts are taken from the record (a registry that did not answer, none here).
    expect(report.fromRecord).toBe(0);
    expect(report.open).toBe(file === 'open.ndjson');
  });

  it.each(files)(
    '%s is an export as GET runs/:id/export writes it: its chain verifies (flex verify-export)',
    (file) => {
      const run = corpus.find((r) => r.file === file) as CorpusRun;
      const verdict = verifyExport(run.text);
      expect(verdict).toMatchObject({ ok: true, events: run.events.length, signature: 'unsigned' });
      expect(verdict.firstBad).toBeUndefined();
    },
  );

  it('covers every run event type, every policy trigger and every policy action', () => {
    const events = corpus.flatMap((r) => r.events);
    const missing = (all: readonly string[], seen: Set<string>) => all.filter((t) => !seen.has(t));
    // Every type of the union, but the registry's own (capability streams: no run is decided on them).
    const runTypes = Object.keys(EVENT_PAYLOAD_SCHEMAS).filter((t) => !capabilityTypes.has(t));
    expect(missing(runTypes, new Set(events.map((e) => e.type)))).toEqual([]);
    const fired = events.filter((e) => e.type === 'policy_triggered').map((e) => e.payload as Fired);
    expect(missing(ACTION_TYPES, new Set(fired.map((p) => p.actionDetails.type)))).toEqual([]);
    expect(missing(POLICY_TRIGGER_KINDS, new Set(fired.map((p) => p.trigger.kind)))).toEqual([]);
  });

  it("re-decides a dead-lettered message's run_failed by the dead-letter rule, whatever service gave up", () => {
    const [start, requested] = (corpus.find((r) => r.file === 'open.ndjson') as CorpusRun).events;
    const deadLetter = {
      consumer: 'planner',
      eventId: requested.id,
      eventType: 'plan_requested',
      deliveryCount: 5,
      error: 'boom',
    };
    const reason = `planner could not handle plan_requested (event ${requested.id}) after 5 deliveries: boom`;
    const failed: StoredEvent = {
      ...requested,
      id: 'dead-1',
      position: requested.position + 1,
      version: 3,
      type: 'run_failed',
      payload: { code: 'dead_lettered', reason, deadLetter },
      metadata: { correlationId: 'c', causationId: requested.id, producer: 'planner' },
    };
    const adapters = flexReplayAdapters(corpus[0].settings);
    expect(verifyReplay([start, requested, failed], adapters)).toMatchObject({ verified: 3, open: false });
    const edited = { ...failed, payload: { ...(failed.payload as object), reason: `${reason}!` } };
    expect(verifyReplay([start, requested, edited], adapters).divergence).toMatchObject({
      version: 3,
      path: '/payload/reason',
      via: 'decideDeadLetterFailure',
      producer: 'planner',
    });
  });

  it('a fallback decided while the registry did not answer is re-decided with no registry, as it was', () => {
    const run = corpus.find((r) => r.file === 'fallback.ndjson') as CorpusRun;
    const fallback = run.events.findIndex((e) => e.type === 'node_start' && e.version > 20);
    const history = run.events.slice(0, fallback);
    const trigger = history.find((e) => e.id === run.events[fallback].metadata.causationId) as StoredEvent;
    const at = (i: number, type: string, payload: unknown, timestamp: string): StoredEvent => ({
      ...trigger,
      id: `replay-spec-${i}`,
      position: 10_000 + i,
      version: history.length + 1 + i,
      type,
      payload,
      metadata: {
        correlationId: trigger.metadata.correlationId,
        causationId: trigger.id,
        producer: 'executor',
      },
      timestamp,
    });
    const message = 'registry snapshot unavailable; no fallback capability this time';
    const unavailable = at(
      0,
      'log',
      { level: 'warn', message, source: 'executor' },
      '2026-11-25T09:00:00.000Z',
    );
    const now = new Date('2026-11-25T09:00:01.000Z');
    const state = [...history, unavailable].reduce(evolveRun, initialRunState());
    const limits = {
      maxReplans: run.settings.FLEX_MAX_REPLANS,
      maxHitlRequests: run.settings.FLEX_MAX_HITL_REQUESTS,
    };
    const options = { limits, retry: retryPolicy(run.settings.FLEX_NODE_MAX_ATTEMPTS), fallbacks: [] };
    const decided = decideReaction(state, trigger, now, options).events;
    expect(decided.map((e) => e.type)).not.toContain('node_start');
    const record = [
      ...history,
      unavailable,
      ...decided.map((e, i) => at(i + 1, e.type, e.payload, now.toISOString())),
    ];
    const adapters = flexReplayAdapters(run.settings);
    expect(verifyReplay(record, adapters)).toMatchObject({ verified: record.length, fromRecord: 1 });
    // Without the line, the registry the run's draft recorded is the one asked: the backup is chosen.
    const withoutLine = record.filter((e) => e !== unavailable).map((e, i) => ({ ...e, version: i + 1 }));
    expect(verifyReplay(withoutLine, adapters).divergence).toMatchObject({
      version: fallback + 1,
      via: 'decideReaction',
    });
  });

  describe('an unreachable agent: the outside facts its decisions took are in the record', () => {
    const run = () => corpus.find((r) => r.file === 'unreachable.ndjson') as CorpusRun;
    const edit = (type: string, change: (payload: any) => void): StoredEvent[] =>
      run().events.map((e) => {
        if (e.type !== type) return e;
        const payload = JSON.parse(JSON.stringify(e.payload));
        change(payload);
        return { ...e, payload };
      });
    const divergence = (events: StoredEvent[]) =>
      verifyReplay(events, flexReplayAdapters(run().settings)).divergence;

    it('records the wait, the give-up and the withdrawal', () => {
      const types = run().events.map((e) => e.type);
      expect(types).toEqual(expect.arrayContaining(['log', 'node_error', 'hitl_request', 'hitl_withdrawn']));
      const failed = run().events.find((e) => e.type === 'node_error')?.payload as any;
      expect(failed).toMatchObject({ error: { code: 'agent_unreachable' }, unreachable: { budgetMs: 1500 } });
    });

    it('a give-up on a clock still within the budget is not what decideAttempt decides', () => {
      const early = edit('node_error', (p) => (p.unreachable.elapsedMs = 100));
      // decideAttempt waits on that clock (appends nothing): the recorded give-up is not decided again.
      const failed = run().events.find((e) => e.type === 'node_error') as StoredEvent;
      expect(divergence(early)).toMatchObject({ type: 'node_error', version: failed.version });
    });

    it('a wait on a clock past the budget is not what decideAttempt decides', () => {
      const late = edit('log', (p) => p.data?.unreachable && (p.data.unreachable.elapsedMs = 5_000));
      expect(divergence(late)).toMatchObject({ type: 'log', via: 'decideAttempt (waiting)' });
    });

    it('a withdrawal on a registry view older than the request is not what decideWithdrawal decides', () => {
      const stale = edit('hitl_withdrawn', (p) => (p.seenAt = '2020-01-01T00:00:00.000Z'));
      // Not back since the request: decideWithdrawal looks again later (appends nothing).
      expect(divergence(stale)).toMatchObject({ type: 'hitl_withdrawn', kind: 'missing' });
    });
  });

  it('names the policy engine, the event and the field when a policy evaluation changes', () => {
    const run = corpus.find((r) => r.file === 'hitl-approve.ndjson') as CorpusRun;
    // The same engine, but a hard DENY now says it is soft: a change no source edit was needed for.
    const softened: typeof evaluatePolicies = (state, trigger, now) =>
      evaluatePolicies(state, trigger, now).map((f) => ({
        ...f,
        decision: { ...f.decision, severity: 'soft' },
      }));
    const report = verifyReplay(run.events, flexReplayAdapters(run.settings, { evaluate: softened }));
    const fired = run.events.find((e) => e.type === 'policy_triggered') as StoredEvent;
    expect(report.divergence).toMatchObject({
      kind: 'changed',
      position: fired.position,
      type: 'policy_triggered',
      path: '/payload/decision/severity',
      recorded: 'hard',
      now: 'soft',
      producer: 'executor',
      component: 'executor (policy engine)',
    });
    expect(report.verified).toBe(fired.version - 1);
  });
});

const capabilityTypes: ReadonlySet<string> = new Set(CAPABILITY_EVENT_TYPES);

type Fired = { actionDetails: { type: string }; trigger: { kind: string } };
