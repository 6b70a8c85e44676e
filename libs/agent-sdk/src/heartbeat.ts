import type { Messaging } from '@flex/bus';
import { describe } from './errors';
import type { AgentLogger } from './logger';

export interface HeartbeatOptions {
  messaging: Messaging;
  subject: string;
  capabilityId: string;
  instanceId: string;
  intervalMs: number;
  logger: AgentLogger;
}

/** Publish `{ capabilityId, instanceId, at }` every interval; a failed publish is logged, never thrown. Returns the stop function. */
export function startHeartbeats(o: HeartbeatOptions): () => void {
  const beat = () => {
    const at = new Date().toISOString();
    o.messaging
      .publish(o.subject, { capabilityId: o.capabilityId, instanceId: o.instanceId, at })
      .catch((error: unknown) => o.logger.warn('agent_heartbeat_failed', { reason: describe(error) }));
  };
  const timer = setInterval(beat, o.intervalMs);
  // The invoke subscription keeps a real process alive; heartbeats alone should not.
  timer.unref();
  return () => clearInterval(timer);
}
