/** One check of a readiness report: whether it holds, and what it found. */
export interface CheckResult {
  ok: boolean;
  detail?: string;
}

/** What `GET /readyz` answers (see ReadinessResponseSchema in @flex/contracts). */
export interface ReadinessReport {
  /**
   * `starting`: a startup step is not done; `unready`: it was ready and a live check fails now;
   * `stopping`: the process is shutting down and takes no new work (for good).
   */
  status: 'ready' | 'starting' | 'unready' | 'stopping';
  checks: Record<string, CheckResult>;
}

type LiveCheck = () => Promise<CheckResult>;

const CHECK_TIMEOUT_MS = 2_000;

/**
 * Whether a process is ready to take work (`GET /readyz`), as opposed to alive (`GET /healthz`).
 * Two kinds of check: startup steps, not ready until done and then done for good (migrations, the
 * reference agents registered, the read models caught up once), and live checks asked on every
 * report (the database answers, the NATS connection is open). Liveness never waits on these.
 */
export class Readiness {
  private readonly steps = new Map<string, CheckResult>();
  private readonly live = new Map<string, LiveCheck>();
  private readonly waiters = new Set<{ resolve: () => void; reject: (error: Error) => void }>();
  private wasReady = false;
  private shutdown: CheckResult | undefined;
  private readonly stopListeners = new Set<() => void>();

  /** A startup step that is not done yet. */
  pending(name: string, detail = 'starting'): void {
    this.steps.set(name, { ok: false, detail });
  }

  /** A startup step is done: it stays done. */
  done(name: string, detail?: string): void {
    this.steps.set(name, detail === undefined ? { ok: true } : { ok: true, detail });
    if (!this.started) return;
    for (const waiter of [...this.waiters]) waiter.resolve();
    this.waiters.clear();
  }

  /** A startup step failed for good: reported as not ready, and `whenStarted` rejects. */
  failed(name: string, detail: string): void {
    this.steps.set(name, { ok: false, detail });
    for (const waiter of [...this.waiters]) waiter.reject(new Error(`${name}: ${detail}`));
    this.waiters.clear();
  }

  /** A check asked on every report. */
  watch(name: string, check: LiveCheck): void {
    this.live.set(name, check);
  }

  /** Every startup step is done (live checks aside): what gates work a process takes. */
  get started(): boolean {
    return [...this.steps.values()].every((s) => s.ok);
  }

  /** Resolves once every startup step is done; rejects when one fails. */
  whenStarted(): Promise<void> {
    if (this.started) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.add({ resolve, reject }));
  }

  /**
   * The process is shutting down: from now on it reports `stopping` (503) without asking the live
   * checks, and `onStop` listeners run once (streams end, intake stops). There is no way back.
   */
  stop(detail = 'shutting down: finishing the work in hand'): void {
    if (this.shutdown) return;
    this.shutdown = { ok: false, detail };
    for (const listener of [...this.stopListeners]) listener();
    this.stopListeners.clear();
  }

  get stopping(): boolean {
    return this.shutdown !== undefined;
  }

  /** Runs `listener` when the process starts shutting down (now, if it has); returns its removal. */
  onStop(listener: () => void): () => void {
    if (this.shutdown) {
      listener();
      return () => undefined;
    }
    this.stopListeners.add(listener);
    return () => this.stopListeners.delete(listener);
  }

  async report(): Promise<ReadinessReport> {
    if (this.shutdown)
      return {
        status: 'stopping',
        checks: this.sorted({ ...Object.fromEntries(this.steps), shutdown: this.shutdown }),
      };
    const checks: Record<string, CheckResult> = Object.fromEntries(this.steps);
    await Promise.all(
      [...this.live].map(async ([name, check]) => {
        checks[name] = await withTimeout(check());
      }),
    );
    const ok = Object.values(checks).every((c) => c.ok);
    if (ok) this.wasReady = true;
    const status = ok ? 'ready' : this.wasReady && this.started ? 'unready' : 'starting';
    return { status, checks: this.sorted(checks) };
  }

  private sorted(checks: Record<string, CheckResult>): Record<string, CheckResult> {
    return Object.fromEntries(Object.entries(checks).sort(([a], [b]) => a.localeCompare(b)));
  }
}

async function withTimeout(check: Promise<CheckResult>): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, detail: `no answer in ${CHECK_TIMEOUT_MS} ms` }),
      CHECK_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([check.catch(() => ({ ok: false, detail: 'the check failed' })), late]);
  } finally {
    clearTimeout(timer);
  }
}
