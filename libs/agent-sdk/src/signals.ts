import type { AgentLogger } from './logger';

interface Stoppable {
  stop(reason?: string): Promise<void>;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
const handles = new Set<Stoppable>();
let shuttingDown = false;
let logger: AgentLogger | undefined;

/**
 * One process-wide listener for all agents started with `handleSignals`: the first signal stops
 * every one of them (finish in-flight, deregister) and then exits, so no agent exits the process
 * while another is still draining. A second signal exits at once.
 */
export function stopOnSignals(handle: Stoppable, log: AgentLogger): void {
  if (handles.size === 0) for (const signal of SIGNALS) process.on(signal, onSignal);
  handles.add(handle);
  logger = log;
}

export function forgetSignals(handle: Stoppable): void {
  if (!handles.delete(handle) || handles.size > 0 || shuttingDown) return;
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

function onSignal(signal: NodeJS.Signals): void {
  if (shuttingDown) {
    logger?.warn('agent_forced_exit', { signal });
    process.exit(1);
  }
  shuttingDown = true;
  logger?.info('agent_signal', { signal, agents: handles.size });
  void Promise.allSettled([...handles].map((h) => h.stop(`signal:${signal}`))).then((results) => {
    for (const signal of SIGNALS) process.off(signal, onSignal);
    shuttingDown = false;
    process.exit(results.some((r) => r.status === 'rejected') ? 1 : 0);
  });
}
