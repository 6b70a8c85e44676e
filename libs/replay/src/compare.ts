import { canonicalJson } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';

/** An event as a decider decides it: what is compared with the record. */
export interface DecidedEvent {
  readonly type: string;
  readonly payload?: unknown;
}

/** Where a re-decided event differs from the recorded one: a JSON Pointer into `{ type, payload }`. */
export interface Difference {
  readonly path: string;
  /** `undefined`: the field is absent on that side. */
  readonly recorded: unknown;
  readonly now: unknown;
}

const DECIDED_ID = /^decided-(\d+)-\d+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Ids a re-decision cannot know: the ids of events it decided in the same step (a decider refers
 * to them as `decided-<version>-<i>`, see run-model's `foldDecided`) become the recorded ids of the
 * events at those versions; any other id a re-decision generated (a UUID the record does not have
 * at that place) is mapped, in order of first appearance, to the recorded one, consistently.
 */
export class IdMap {
  private readonly now = new Map<string, string>();
  private readonly recorded = new Map<string, string>();

  constructor(private readonly idAtVersion: (version: number) => string | undefined) {}

  /** True when `now` (re-decided) and `recorded` are the same id under the mapping so far. */
  same(now: string, recorded: string): boolean {
    if (now === recorded) return true;
    const decided = DECIDED_ID.exec(now);
    if (decided) return this.idAtVersion(Number(decided[1])) === recorded;
    if (!UUID.test(now) || !UUID.test(recorded)) return false;
    const mapped = this.now.get(now);
    if (mapped !== undefined) return mapped === recorded;
    if (this.recorded.has(recorded)) return false;
    this.now.set(now, recorded);
    this.recorded.set(recorded, now);
    return true;
  }
}

/**
 * The first difference between a re-decided event and the recorded one, comparing `type` and
 * `payload` under canonical JSON (RFC 8785: key order, number form and absent-vs-undefined do not
 * count) and modulo ids ({@link IdMap}); `undefined` when they agree.
 */
export function firstDifference(
  now: DecidedEvent,
  recorded: StoredEvent,
  ids: IdMap,
): Difference | undefined {
  return diff(
    canonical({ type: now.type, payload: now.payload }),
    canonical({ type: recorded.type, payload: recorded.payload }),
    '',
    ids,
  );
}

function canonical(value: unknown): unknown {
  return JSON.parse(canonicalJson(value));
}

function diff(now: unknown, recorded: unknown, path: string, ids: IdMap): Difference | undefined {
  if (typeof now === 'string' && typeof recorded === 'string')
    return ids.same(now, recorded) ? undefined : { path, recorded, now };
  if (isObject(now) && isObject(recorded)) return diffObjects(now, recorded, path, ids);
  if (Array.isArray(now) && Array.isArray(recorded)) return diffArrays(now, recorded, path, ids);
  return canonicalJson(now) === canonicalJson(recorded) ? undefined : { path, recorded, now };
}

function diffObjects(
  now: Record<string, unknown>,
  recorded: Record<string, unknown>,
  path: string,
  ids: IdMap,
): Difference | undefined {
  const keys = [...new Set([...Object.keys(now), ...Object.keys(recorded)])].sort();
  for (const key of keys) {
    const at = `${path}/${pointerToken(key)}`;
    if (!(key in now) || !(key in recorded)) return { path: at, recorded: recorded[key], now: now[key] };
    const found = diff(now[key], recorded[key], at, ids);
    if (found) return found;
  }
  return undefined;
}

function diffArrays(now: unknown[], recorded: unknown[], path: string, ids: IdMap): Difference | undefined {
  for (let i = 0; i < Math.max(now.length, recorded.length); i++) {
    if (i >= now.length || i >= recorded.length)
      return { path: `${path}/${i}`, recorded: recorded[i], now: now[i] };
    const found = diff(now[i], recorded[i], `${path}/${i}`, ids);
    if (found) return found;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 6901: `~` and `/` escaped in a JSON Pointer token. */
function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
