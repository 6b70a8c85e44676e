/**
 * Recent results by idempotency key, least recently used evicted first. A key being computed is
 * shared: a redelivery that arrives while the first delivery runs waits for the same promise.
 * Failures are not kept, so a later delivery tries again.
 */
export class IdempotencyCache<T> {
  private readonly done = new Map<string, T>();
  private readonly running = new Map<string, Promise<T>>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0)
      throw new RangeError(`cache capacity must be a non-negative integer, got ${capacity}`);
  }

  /** `replayed` is true when the value came from an earlier (or concurrent) run of the same key. */
  async run(key: string, compute: () => Promise<T>): Promise<{ value: T; replayed: boolean }> {
    if (this.done.has(key)) {
      const value = this.done.get(key) as T;
      this.done.delete(key);
      this.done.set(key, value);
      return { value, replayed: true };
    }
    const pending = this.running.get(key);
    if (pending) return { value: await pending, replayed: true };
    const promise = compute();
    this.running.set(key, promise);
    try {
      const value = await promise;
      this.remember(key, value);
      return { value, replayed: false };
    } finally {
      this.running.delete(key);
    }
  }

  get size(): number {
    return this.done.size;
  }

  private remember(key: string, value: T): void {
    if (this.capacity === 0) return;
    this.done.set(key, value);
    while (this.done.size > this.capacity) {
      const oldest = this.done.keys().next().value as string;
      this.done.delete(oldest);
    }
  }
}
