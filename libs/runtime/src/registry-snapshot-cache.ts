import type { CapabilitySnapshot } from './registry.client';
import { deepFreeze } from './stream-state-cache';

export interface RegistrySnapshotCacheOptions {
  /** Longest a kept snapshot is served (ms): bounds what a lost `changed` notice can cost. 0 keeps none. */
  maxAgeMs: number;
  /** Milliseconds now (the process clock). */
  now: () => number;
  /**
   * Start listening for the registry's `changed` notices (calling `onChanged` for each); resolves
   * once the registry's server knows of the interest. Called once, before the first fetch.
   */
  listen: (onChanged: () => void) => Promise<void>;
}

interface Fetching {
  generation: number;
  snapshot: Promise<CapabilitySnapshot>;
}

/**
 * The registry's snapshot, kept by a process between the registry's changes instead of asked for
 * by every handler of every run. The registry publishes `<prefix>.registry.changed` once a change
 * is in the read model it answers from, before it replies to whoever asked for the change; a
 * notice drops the kept snapshot, and a fetch begun before a notice is not kept (it may have been
 * answered before the change). So a snapshot served was answered after every notice this process
 * had received when it asked: never older than a change the process has heard of. A notice lost
 * (NATS reconnecting) costs at most `maxAgeMs`. Concurrent askers share one fetch.
 *
 * Only for what changes with the registry's events (registrations, status, instances active):
 * `lastSeenAt` moves with every heartbeat without one, so a look at it asks the registry itself.
 */
export class RegistrySnapshotCache {
  private kept: { snapshot: CapabilitySnapshot; askedAt: number } | undefined;
  private fetching: Fetching | undefined;
  private generation = 0;
  private listening: Promise<boolean> | undefined;

  constructor(private readonly options: RegistrySnapshotCacheOptions) {}

  /** The registry changed: nothing fetched so far is served again. */
  changed(): void {
    this.generation++;
    this.kept = undefined;
    this.fetching = undefined;
  }

  /** A snapshot no older than the last notice received; `fetch` asks the registry when none is kept. */
  async get(fetch: () => Promise<CapabilitySnapshot>): Promise<CapabilitySnapshot> {
    const { maxAgeMs, now } = this.options;
    // Without the notices nothing may be kept: ask the registry each time.
    if (maxAgeMs <= 0 || !(await (this.listening ??= this.listen()))) return fetch();
    if (this.kept && now() - this.kept.askedAt < maxAgeMs) return this.kept.snapshot;
    if (this.fetching?.generation === this.generation) return this.fetching.snapshot;
    const fetching = { generation: this.generation, snapshot: fetch() };
    const askedAt = now();
    this.fetching = fetching;
    try {
      const snapshot = await fetching.snapshot;
      if (fetching.generation === this.generation) this.kept = { snapshot: deepFreeze(snapshot), askedAt };
      return snapshot;
    } finally {
      if (this.fetching === fetching) this.fetching = undefined;
    }
  }

  /** Whether the notices are listened to; a failure is tried again by the next get(). */
  private async listen(): Promise<boolean> {
    try {
      await this.options.listen(() => this.changed());
      return true;
    } catch {
      this.listening = undefined;
      return false;
    }
  }
}
