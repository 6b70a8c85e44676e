import { TERMINAL_EVENT_TYPES } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import type { ReplayAdapter, ReplayAdapters, Redecision, ReplayStep } from './adapter';
import { batchAt } from './batches';
import { firstDifference, IdMap, type DecidedEvent, type Difference } from './compare';

/**
 * Where the record and the current decide functions part: the first recorded event that is not
 * what its component decides now.
 * - `changed`: the component decides this event differently (`path` names the field);
 * - `missing`: the component no longer decides this event (`now` is absent);
 * - `extra`: the component now decides one more event after the recorded append (at `position`
 *   stands the event that follows in the record, if any);
 * - `no_adapter`: no adapter re-decides this producer's events;
 * - `adapter_error`: re-deciding threw (`now` holds the error message).
 */
export interface Divergence extends Difference {
  readonly kind: 'changed' | 'missing' | 'extra' | 'no_adapter' | 'adapter_error';
  readonly position: number | undefined;
  readonly version: number;
  readonly eventId: string | undefined;
  readonly type: string;
  readonly producer: string | undefined;
  /** The component that decided it (the policy engine for a policy's events, see ReplayAdapter). */
  readonly component: string;
  /** The decide path compared (e.g. `decideReaction`), when one was. */
  readonly via?: string;
  /** With `{ decisions: true }`: the divergent decision, from the divergent event on (see VerifyOptions). */
  readonly decision?: DivergentDecision;
}

/** A decision that parts from the record, from the first differing event to the end of its append. */
export interface DivergentDecision {
  /** What the component decides now (nothing when it decides nothing). */
  readonly now: readonly DecidedEvent[];
  /** What the record holds in the same append. */
  readonly recorded: readonly DecidedEvent[];
}

export interface VerifyOptions {
  /** Attach the whole divergent decision to the divergence (for policy what-if). */
  readonly decisions?: boolean;
}

export interface ReplayReport {
  readonly streamId: string;
  readonly events: number;
  /** Events re-decided and found equal, before the divergence if any. */
  readonly verified: number;
  /** Of those, events an adapter took from the record instead of deciding them (see Redecision). */
  readonly fromRecord: number;
  /** The position of the last event looked at. */
  readonly lastPosition: number | undefined;
  /** The run has not ended: verified up to its last event. */
  readonly open: boolean;
  readonly divergence?: Divergence;
}

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_EVENT_TYPES);

/**
 * Re-decide a stream: every recorded append is cut out of the record (see `batchAt`), its
 * component's adapter decides it again on the state before it, its trigger and its clock reading,
 * and what it decides is compared with what was recorded (canonical JSON, modulo ids). A decision
 * that covers only the start of a batch (two appends in one millisecond) verifies that part and the
 * rest is taken as the next append. Stops at the first divergence. `events`: one stream's events,
 * versions 1, 2, 3… in order (as `parseExportFile` checks an export).
 */
export function verifyReplay(
  events: readonly StoredEvent[],
  adapters: ReplayAdapters,
  options: VerifyOptions = {},
): ReplayReport {
  const byId = new Map(events.map((e) => [e.id, e]));
  const ids = new IdMap((version) => events[version - 1]?.id);
  let fromRecord = 0;
  const report = (verified: number, divergence?: Divergence): ReplayReport => ({
    streamId: events[0]?.streamId ?? '',
    events: events.length,
    verified,
    fromRecord,
    lastPosition: events[events.length - 1]?.position,
    open: !events.some((e) => TERMINAL.has(e.type)),
    ...(divergence ? { divergence } : {}),
  });
  for (let at = 0; at < events.length;) {
    const batch = batchAt(events, at);
    const first = batch.events[0];
    const adapter = batch.producer === undefined ? undefined : adapters.get(batch.producer);
    if (!adapter) return report(at, noAdapter(first));
    const step: ReplayStep = {
      history: events.slice(0, at),
      trigger: batch.causationId === undefined ? undefined : byId.get(batch.causationId),
      recorded: batch.events,
      now: new Date(batch.timestamp),
    };
    let outcome: Match;
    try {
      outcome = match(adapter.redecide(step), step.recorded, ids);
    } catch (error) {
      // A throw, or events that are not JSON (canonicalJson refuses them): said, never skipped.
      return report(at, adapterError(first, adapter, error));
    }
    // The events of the batch before the divergent one agree: they count as verified.
    if (outcome.kind === 'diverged') {
      const found = divergence(outcome, events, at, adapter);
      const decision = options.decisions ? decisionOf(outcome, batch.events) : undefined;
      return report(at + outcome.index, decision ? { ...found, decision } : found);
    }
    if (outcome.fromRecord) fromRecord += outcome.length;
    at += outcome.length;
  }
  return report(events.length);
}

type Match =
  | { kind: 'matched'; length: number; fromRecord?: boolean }
  | {
      kind: 'diverged';
      index: number;
      difference: Difference;
      via?: string;
      extra: boolean;
      decided: readonly DecidedEvent[];
    };

/** The candidate that reproduces the most of the batch from its start; else the first difference. */
function match(candidates: readonly Redecision[], recorded: readonly StoredEvent[], ids: IdMap): Match {
  let best: Extract<Match, { kind: 'diverged' }> | undefined;
  let matched: Extract<Match, { kind: 'matched' }> | undefined;
  for (const candidate of candidates) {
    if (candidate.events.length === 0) continue;
    const compared = compareCandidate(candidate, recorded, ids);
    if (compared.kind === 'diverged') best = !best || compared.index > best.index ? compared : best;
    else if (!matched || compared.length > matched.length) matched = compared;
  }
  if (matched) return matched;
  const missing = { path: '', recorded: eventJson(recorded[0]), now: undefined };
  return best ?? { kind: 'diverged', index: 0, difference: missing, extra: false, decided: [] };
}

function compareCandidate(candidate: Redecision, recorded: readonly StoredEvent[], ids: IdMap): Match {
  const { events, via } = candidate;
  for (let i = 0; i < events.length; i++) {
    if (i >= recorded.length) {
      const difference = { path: '', recorded: undefined, now: events[i] as DecidedEvent };
      return { kind: 'diverged', index: i, difference, via, extra: true, decided: events };
    }
    const difference = firstDifference(events[i], recorded[i], ids);
    if (difference) return { kind: 'diverged', index: i, difference, via, extra: false, decided: events };
  }
  return { kind: 'matched', length: events.length, fromRecord: candidate.fromRecord };
}

function divergence(
  outcome: Extract<Match, { kind: 'diverged' }>,
  events: readonly StoredEvent[],
  at: number,
  adapter: ReplayAdapter,
): Divergence {
  const event: StoredEvent | undefined = events[at + outcome.index];
  const { difference, via, extra } = outcome;
  const kind = extra
    ? 'extra'
    : difference.now === undefined && difference.path === ''
      ? 'missing'
      : 'changed';
  const type = extra ? (difference.now as DecidedEvent).type : (event?.type ?? '');
  return {
    kind,
    ...difference,
    recorded: extra ? (event ? eventJson(event) : undefined) : difference.recorded,
    position: event?.position,
    version: event?.version ?? events[events.length - 1].version + 1,
    eventId: event?.id,
    type,
    producer: adapter.producer,
    component: adapter.component?.(type) ?? adapter.producer,
    ...(via ? { via } : {}),
  };
}

function decisionOf(
  outcome: Extract<Match, { kind: 'diverged' }>,
  batch: readonly StoredEvent[],
): DivergentDecision {
  return {
    now: outcome.decided.slice(outcome.index),
    recorded: batch.slice(outcome.index).map((e) => eventJson(e) as DecidedEvent),
  };
}

function noAdapter(event: StoredEvent): Divergence {
  const producer = event.metadata.producer;
  return {
    ...at(event),
    kind: 'no_adapter',
    path: '/metadata/producer',
    recorded: producer,
    now: undefined,
    producer,
    component: producer ?? 'unknown',
  };
}

function adapterError(event: StoredEvent, adapter: ReplayAdapter, error: unknown): Divergence {
  const message = error instanceof Error ? error.message : String(error);
  return {
    ...at(event),
    kind: 'adapter_error',
    path: '',
    recorded: eventJson(event),
    now: message,
    producer: adapter.producer,
    component: adapter.component?.(event.type) ?? adapter.producer,
  };
}

function at(event: StoredEvent) {
  return { position: event.position, version: event.version, eventId: event.id, type: event.type };
}

function eventJson(event: StoredEvent | undefined): DecidedEvent | undefined {
  return event && { type: event.type, payload: event.payload };
}
