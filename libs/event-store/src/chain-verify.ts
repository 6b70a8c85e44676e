import { chainHash, chainHead, GENESIS_HASH, type ChainedEvent, type ChainHead } from './chain';

/** What the evidence at the first bad event shows (docs/AUDIT.md says how each is told apart). */
export type ChainProblem = 'edited' | 'inserted' | 'deleted' | 'reordered';

/** The first place where a chain stops being the one the store wrote. */
export interface ChainFault {
  /** Index in the chain as given (version order); `events` when the chain ends before its head. */
  index: number;
  /** The event there; null when it is missing (the chain ends before the expected head). */
  position: number | null;
  version: number;
  eventId: string | null;
  problem: ChainProblem;
  detail: string;
}

export interface ChainVerdict {
  ok: boolean;
  /** Events checked. */
  events: number;
  /** Where the chain as given ends. */
  head: ChainHead;
  firstBad?: ChainFault;
}

type Finding = Pick<ChainFault, 'index' | 'problem' | 'detail'>;

/**
 * Checks a stream's chain in the order given: every event's hash is the hash of its fields and its
 * `prev`, every `prev` is the hash of the event before it, versions run 1, 2, 3… Given the head the
 * chain should end at (an export's last line, a signed head), it also finds events deleted from, or
 * added to, the end. The first fault found is named; nothing after it is trusted.
 */
export function verifyChain(events: readonly ChainedEvent[], expected?: ChainHead): ChainVerdict {
  const streamId = expected?.streamId ?? events[0]?.streamId ?? '';
  const head = chainHead(streamId, events);
  const finding = firstFinding(events, streamId, expected);
  if (!finding) return { ok: true, events: events.length, head };
  return { ok: false, events: events.length, head, firstBad: faultAt(events, finding) };
}

function firstFinding(
  events: readonly ChainedEvent[],
  streamId: string,
  expected?: ChainHead,
): Finding | undefined {
  for (let i = 0; i < events.length; i++) {
    const finding = findingAt(events, i, streamId, expected);
    if (finding) return finding;
  }
  if (!expected) return undefined;
  if (events.length < expected.version)
    return {
      index: events.length,
      problem: 'deleted',
      detail: `the chain ends at version ${events.length}; its head says ${expected.version}`,
    };
  if (head(events) !== expected.hash)
    return {
      index: Math.max(events.length - 1, 0),
      problem: 'edited',
      detail:
        'the chain holds together but does not end at the expected head: ' +
        'it was rewritten, or the head is not its own',
    };
  return undefined;
}

const head = (events: readonly ChainedEvent[]) => events[events.length - 1]?.hash ?? GENESIS_HASH;

function findingAt(
  events: readonly ChainedEvent[],
  i: number,
  streamId: string,
  expected?: ChainHead,
): Finding | undefined {
  const event = events[i];
  const found = (problem: ChainProblem, detail: string, index = i): Finding => ({ index, problem, detail });
  const beyond = () => found('inserted', `the head says the chain ends at version ${expected?.version}`);
  const pastHead = expected !== undefined && i >= expected.version;
  if (event.prev === null || event.hash === null)
    return found('inserted', 'the event has no chain links: the append path did not write it');
  const expectedPrev = i === 0 ? GENESIS_HASH : events[i - 1].hash;
  const linked = event.prev === expectedPrev;
  const sound = holds(event) && event.streamId === streamId;
  if (linked && sound && event.version === i + 1) return pastHead ? beyond() : undefined;
  const later = events.slice(i + 1);
  if (later.some((e) => e.hash === event.prev)) return found('reordered', 'its predecessor comes after it');
  if (later.some((e) => e.prev === expectedPrev))
    return found('inserted', 'a later event continues the chain from its predecessor');
  if (!linked) {
    const claimed = claimedPredecessor(events, i);
    // It names an earlier event as its predecessor: genuine, it makes the ones between extra.
    if (claimed !== undefined && sound) return found('inserted', 'not in the chain', claimed + 1);
    if (claimed !== undefined)
      return found('inserted', 'it claims a predecessor that already has a successor');
  }
  if (pastHead) return beyond();
  if (!linked && sound) return found('deleted', 'its predecessor is missing');
  return found(
    'edited',
    sound ? `its version is ${event.version}, not ${i + 1}` : 'its hash does not match it',
  );
}

/** Which event before the previous one `events[i]` names as its predecessor: -1 for the start. */
function claimedPredecessor(events: readonly ChainedEvent[], i: number): number | undefined {
  const { prev } = events[i];
  if (i > 0 && prev === GENESIS_HASH) return -1;
  const j = events.slice(0, i - 1).findIndex((e) => e.hash === prev);
  return j >= 0 ? j : undefined;
}

/** The event's hash is the hash of its fields and its `prev`. */
function holds(event: ChainedEvent): boolean {
  if (event.prev === null) return false;
  try {
    return chainHash({ ...event, prev: event.prev }) === event.hash;
  } catch {
    // Not canonical JSON (an edit put a value JSON cannot carry there): not what was hashed.
    return false;
  }
}

function faultAt(events: readonly ChainedEvent[], { index, problem, detail }: Finding): ChainFault {
  const event = events[index];
  if (!event) return { index, position: null, version: index + 1, eventId: null, problem, detail };
  return { index, position: event.position, version: event.version, eventId: event.id, problem, detail };
}
