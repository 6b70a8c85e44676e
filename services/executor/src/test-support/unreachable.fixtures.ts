import type { InvokeOutcome } from '../run/invoke.decide';
import type { UnreachableClock } from '../run/unreachable.decide';
import { brief, completed, runEvents, started, type Given } from './run.fixtures';

/** Where a wait stands in the unreachable budget: 30 s, nothing spent, deliveries to spare. */
export const unreachableClock = (over: Partial<UnreachableClock> = {}): UnreachableClock => ({
  elapsedMs: 0,
  budgetMs: 30_000,
  deliveriesLeft: 8,
  jitter: 0,
  ...over,
});

/** Nobody served the capability (flagged unreachable, as the agent client does), or another `code`. */
export const unreachableOutcome = (code = 'NO_RESPONDERS'): InvokeOutcome => ({
  ok: false,
  durationMs: 1,
  error: { code, message: 'no responders on flex.agent.W', retryable: true },
  ...(code === 'NO_RESPONDERS' || code === 'BUS_DISCONNECTED' ? { unreachable: true as const } : {}),
});

/** The strategy node done, the writer's first attempt (on W.write) running. */
export const writerRunning = (): Given[] => [
  ...runEvents([]),
  started('structuring-1'),
  completed('structuring-1', brief),
  started('execution-1', 1, 'W.write'),
];
