import { isUnreachable, nextUnreachableWait, registrySubjects, type Messaging } from '@flex/bus';
import type { CapabilityRegistration } from '@flex/contracts';
import { traceHeaders } from '@flex/tracing';

/** One capability as the registry sees it now: its registration and how many live instances serve it. */
export interface CapabilityView {
  registration: CapabilityRegistration;
  status: 'active' | 'inactive' | 'deregistered';
  activeInstances: number;
  registeredAt: string;
  lastSeenAt: string;
}

export interface CapabilitySnapshot {
  capabilities: CapabilityView[];
}

/**
 * Ask the registry for its live view (request/reply; the registry answers from its read model).
 * A registry nobody can reach (no responders, NATS reconnecting) is asked again with backoff for up
 * to `budgetMs` (`FLEX_UNREACHABLE_BUDGET_MS`); after that, or on any other error, the error is thrown.
 */
export async function fetchCapabilitySnapshot(
  messaging: Messaging,
  prefix: string,
  timeoutMs = 5000,
  budgetMs = 0,
): Promise<CapabilitySnapshot> {
  const started = Date.now();
  for (;;) {
    try {
      return await messaging.request<CapabilitySnapshot>(
        registrySubjects(prefix).snapshot,
        {},
        { timeoutMs, headers: traceHeaders() },
      );
    } catch (error) {
      const elapsedMs = Date.now() - started;
      const wait = isUnreachable(error)
        ? nextUnreachableWait({ elapsedMs, budgetMs, jitter: Math.random() })
        : undefined;
      if (wait === undefined) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** Active registrations, sorted by id so every consumer sees the same order. */
export function activeRegistrations(snapshot: CapabilitySnapshot): CapabilityRegistration[] {
  return snapshot.capabilities
    .filter((c) => c.status === 'active')
    .map((c) => c.registration)
    .sort((a, b) => (a.capabilityId < b.capabilityId ? -1 : a.capabilityId > b.capabilityId ? 1 : 0));
}
