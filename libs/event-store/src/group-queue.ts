import type { AppendItem } from './append';

/** What is committed all or nothing: one append, or the items of one appendBatch. */
export interface Queued {
  items: readonly AppendItem[];
}

export interface Group<U extends Queued> {
  units: U[];
  resources: Set<string>;
}

/**
 * What an append's outcome can depend on besides itself: its stream, its key, its event ids. Two
 * appends sharing one must commit in the order submitted; appends sharing none commute.
 */
function resourcesOf(items: readonly AppendItem[]): string[] {
  return items.flatMap((item) => [
    `stream:${item.streamId}`,
    ...(item.options.idempotencyKey === undefined ? [] : [`key:${item.options.idempotencyKey}`]),
    ...item.events.map((event) => `event:${event.id}`),
  ]);
}

interface Waiting<U> {
  unit: U;
  resources: string[];
}

/**
 * The appends waiting for a transaction, and which streams, keys and event ids the groups in flight
 * hold. A group is taken in submission order, skipping an append that shares anything with a group in
 * flight or with an append skipped before it: so a stream is never in two groups at once and the
 * outcome of every append is the one it would have had, appended alone after all submitted before it.
 */
export class GroupQueue<U extends Queued> {
  #waiting: Array<Waiting<U>> = [];
  readonly #held = new Set<string>();

  get length(): number {
    return this.#waiting.length;
  }

  push(unit: U): void {
    this.#waiting.push({ unit, resources: resourcesOf(unit.items) });
  }

  /** Up to `max` single appends, or one batch alone; undefined when nothing may start now. */
  take(max: number): Group<U> | undefined {
    const group: Group<U> = { units: [], resources: new Set() };
    const skipped = new Set<string>();
    const left: Array<Waiting<U>> = [];
    for (const entry of this.#waiting) {
      const single = entry.unit.items.length === 1;
      const free = entry.resources.every((r) => !this.#held.has(r) && !skipped.has(r));
      const fits = group.units.length < max && (single || group.units.length === 0);
      const batchTaken = group.units.length === 1 && group.units[0].items.length !== 1;
      if (free && fits && !batchTaken) {
        group.units.push(entry.unit);
        entry.resources.forEach((r) => group.resources.add(r));
      } else {
        left.push(entry);
        entry.resources.forEach((r) => skipped.add(r));
      }
    }
    if (group.units.length === 0) return undefined;
    this.#waiting = left;
    group.resources.forEach((r) => this.#held.add(r));
    return group;
  }

  /** The group has committed or failed: what it held is free. */
  release(group: Group<U>): void {
    group.resources.forEach((r) => this.#held.delete(r));
  }
}
