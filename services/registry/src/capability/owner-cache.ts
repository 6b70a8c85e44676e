/** Owners change only by a first registration or an admin's assignment: a short memory is enough. */
const DEFAULT_TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  owner: string | undefined;
  atMs: number;
}

/**
 * Who owns each capability, as its stream last said. A heartbeat costs one query, not a stream
 * read, so it is checked against this memory; registrations and deregistrations read the stream
 * (`fresh`) and the decider has the last word on them. With several registry replicas, a
 * reassignment reaches another replica's heartbeat check within the TTL.
 */
export class OwnerCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly load: (capabilityId: string) => Promise<string | undefined>,
    private readonly ttlMs = DEFAULT_TTL_MS,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async ownerOf(capabilityId: string, options: { fresh?: boolean } = {}): Promise<string | undefined> {
    const entry = this.entries.get(capabilityId);
    if (entry && !options.fresh && this.nowMs() - entry.atMs < this.ttlMs) return entry.owner;
    const owner = await this.load(capabilityId);
    this.remember(capabilityId, owner);
    return owner;
  }

  remember(capabilityId: string, owner: string | undefined): void {
    this.entries.delete(capabilityId);
    this.entries.set(capabilityId, { owner, atMs: this.nowMs() });
    // Maps iterate in insertion order: the first key is the one remembered longest ago.
    if (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
}
