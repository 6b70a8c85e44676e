/**
 * Runs a task now and then: every `intervalMs`, at once when the task says there is more, or when
 * woken. Never two runs at a time; stop() waits for the run in flight. Task errors go to onError
 * and the loop goes on.
 */
export class Poller {
  #timer?: NodeJS.Timeout;
  #running?: Promise<void>;
  #stopped = true;
  #again = false;

  constructor(
    private readonly task: () => Promise<boolean>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Run as soon as possible (right after the current run, if one is in flight). */
  wake(): void {
    if (this.#stopped) return;
    if (this.#running) this.#again = true;
    else this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#tick(), delayMs);
    this.#timer.unref();
  }

  #tick(): void {
    if (this.#stopped || this.#running) return;
    this.#again = false;
    this.#running = this.#run().then((more) => {
      this.#running = undefined;
      if (!this.#stopped) this.#schedule(more || this.#again ? 0 : this.intervalMs);
    });
  }

  async #run(): Promise<boolean> {
    try {
      return await this.task();
    } catch (error) {
      this.onError(error);
      return false;
    }
  }
}
