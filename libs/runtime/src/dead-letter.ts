import { decision } from '@flex/decider';
import type { DeadLetter } from '@flex/bus';
import {
  IdentifierSchema,
  runIdFromStreamId,
  TERMINAL_EVENT_TYPES,
  toStorableText,
  type DecidedRunEvent,
} from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { runCommand } from './command';
import type { ServiceRuntime } from './runtime';

/** `run_failed.code` when a message of the run dead-lettered. */
export const DEAD_LETTERED = 'dead_lettered';

/** All a dead letter needs to know of its run: whether it began, and whether it has ended. */
export interface RunEnding {
  started: boolean;
  ended: boolean;
}

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_EVENT_TYPES);

export const initialRunEnding = (): RunEnding => ({ started: false, ended: false });

export function evolveRunEnding(state: RunEnding, event: StoredEvent): RunEnding {
  return { started: state.started || event.type === 'start', ended: state.ended || TERMINAL.has(event.type) };
}

/**
 * A run whose message a service gave up on can no longer move: without this it would stay
 * `running` forever. Fail it (pure): once, and never a run that has ended or never began.
 */
export function decideDeadLetterFailure(state: RunEnding, dead: DeadLetter): DecidedRunEvent<'run_failed'>[] {
  if (!state.started || state.ended) return [];
  const { consumer, event, deliveryCount } = dead;
  const error = clip(dead.reason || 'no reason recorded', 4_000);
  const nodeId = nodeIdOf(event.payload);
  const reason =
    `${consumer} could not handle ${event.type} (event ${event.id}${nodeId ? `, node ${nodeId}` : ''}) ` +
    `after ${deliveryCount} deliveries: ${error}`;
  const deadLetter = {
    consumer: clip(consumer, 200),
    eventId: event.id,
    eventType: event.type,
    deliveryCount: Math.max(1, deliveryCount),
    error,
  };
  return [
    {
      type: 'run_failed',
      payload: {
        code: DEAD_LETTERED,
        reason: clip(reason, 8_000),
        ...(nodeId ? { nodeId } : {}),
        deadLetter,
      },
    },
  ];
}

/**
 * After a dead letter is recorded: fail its run (run streams only). The append expects the
 * stream's version, so of several dead letters racing for one run, one fails it and the others
 * find it ended. A throw here makes the bus redeliver, and the dead letter is handled again.
 */
export async function failRunOfDeadLetter(runtime: ServiceRuntime, dead: DeadLetter): Promise<StoredEvent[]> {
  const runId = runIdFromStreamId(dead.event.streamId);
  if (!runId) return [];
  const { correlationId, traceparent } = dead.event.metadata;
  const result = await runCommand({
    store: runtime.store,
    streamId: dead.event.streamId,
    fold: { initialState: initialRunEnding, evolve: evolveRunEnding },
    decide: (state) => decision(decideDeadLetterFailure(state, dead)),
    metadata: () => ({ correlationId, traceparent, causationId: dead.event.id, producer: dead.consumer }),
    idempotencyKey: `dead-letter:${dead.consumer}:${dead.event.id}`,
    clock: runtime.clock,
    ids: runtime.ids,
    cache: runtime.streamStates,
  });
  if (result.appended.length) {
    runtime.logger.error('run failed: a message dead-lettered', {
      runId,
      consumer: dead.consumer,
      eventId: dead.event.id,
      type: dead.event.type,
    });
  }
  return result.appended;
}

function nodeIdOf(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null || !('nodeId' in payload)) return undefined;
  const parsed = IdentifierSchema.safeParse(payload.nodeId);
  return parsed.success ? parsed.data : undefined;
}

/** At most `max` UTF-16 units, storable (a surrogate pair cut in two leaves U+FFFD). */
function clip(text: string, max: number): string {
  return toStorableText(text.length > max ? `${text.slice(0, max - 1)}…` : text);
}
