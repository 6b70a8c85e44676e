import type { RuntimePolicy } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import {
  startedBefore,
  whatIfReport,
  whatIfRun,
  type ReplayAdapters,
  type WhatIfMode,
  type WhatIfReport,
  type WhatIfRun,
} from '@flex/replay';
import { apiError } from '../http/api-error';

/** What the gateway re-decides runs with: the app's replay adapters, and the time one request may take. */
export interface WhatIfEngine {
  adapters: ReplayAdapters;
  budgetMs: number;
}

/** Provider token of the {@link WhatIfEngine}; absent in a gateway process that has no decide functions. */
export const WHAT_IF_ENGINE = Symbol.for('flex.whatIfEngine');

/**
 * Re-decide `runIds` (those started at or after `since`, when given) one after the other with `policies` (`read`: a run's stored events, as its export
 * reads them). Bounded: once the work done exceeds `budgetMs` with runs left, a 422
 * `what_if_budget_exceeded` says how far it got (ask for fewer runs). Nothing is written.
 */
export async function whatIfWithin(
  runIds: readonly string[],
  policies: readonly RuntimePolicy[],
  engine: WhatIfEngine,
  read: (runId: string) => Promise<readonly StoredEvent[]>,
  now: () => number,
  options: { since?: string; mode?: WhatIfMode } = {},
): Promise<WhatIfReport> {
  const { since, mode = 'replace' } = options;
  const started = now();
  const runs: WhatIfRun[] = [];
  for (const runId of runIds) {
    const elapsedMs = now() - started;
    if (runs.length > 0 && elapsedMs > engine.budgetMs)
      throw apiError(
        422,
        'what_if_budget_exceeded',
        `re-deciding took more than ${engine.budgetMs} ms after ${runs.length} of ${runIds.length} runs: ask for fewer runs`,
        { budgetMs: engine.budgetMs, elapsedMs, runsDone: runs.length, runsSelected: runIds.length },
      );
    const events = await read(runId);
    if (!startedBefore(events, since)) runs.push(whatIfRun(events, policies, engine.adapters, mode));
  }
  return whatIfReport(policies, mode, runs);
}
