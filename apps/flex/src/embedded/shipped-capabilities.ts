import type { ReferenceAgents } from '@flex/agents-reference';
import { activeRegistrations, fetchCapabilitySnapshot, type ServiceRuntime } from '@flex/runtime';

const POLL_MS = 100;
const SNAPSHOT_TIMEOUT_MS = 2_000;

/**
 * The readiness step `agents`: done once every reference agent has registered and the registry's
 * snapshot (what the planner drafts over) lists its capability active. Until then a run would fail
 * planning with PLANNER_NO_CAPABILITIES; an agent the registry refuses fails the step.
 */
export function awaitShippedCapabilities(runtime: ServiceRuntime, agents: ReferenceAgents): { stop(): void } {
  const ids = agents.handles.map((h) => h.capabilityId);
  const { readiness } = runtime;
  readiness.pending('agents', `waiting for ${ids.join(', ')} to register`);
  let stopped = false;
  void (async () => {
    try {
      await agents.ready;
    } catch (error) {
      readiness.failed('agents', `a reference agent could not register: ${(error as Error).message}`);
      return;
    }
    while (!stopped) {
      const missing = await inactive(runtime, ids);
      if (missing.length === 0) {
        readiness.done('agents', `${ids.length} registered: ${ids.join(', ')}`);
        return;
      }
      readiness.pending('agents', `not active in the registry yet: ${missing.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();
  return { stop: () => (stopped = true) };
}

/** The capabilities of `ids` the registry does not list active (all of them while it does not answer). */
async function inactive(runtime: ServiceRuntime, ids: readonly string[]): Promise<string[]> {
  try {
    const snapshot = await fetchCapabilitySnapshot(runtime.messaging, runtime.prefix, SNAPSHOT_TIMEOUT_MS);
    const active = new Set(activeRegistrations(snapshot).map((r) => r.capabilityId));
    return ids.filter((id) => !active.has(id));
  } catch {
    return [...ids];
  }
}
