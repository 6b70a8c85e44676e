import {
  isUnreachable,
  nextUnreachableWait,
  registrySubjects,
  type FlexEventContext,
  type Messaging,
} from '@flex/bus';
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

const WORKING_EVERY_MS = 4_000;
const SNAPSHOT_TIMEOUT_MS = 3_000;

/** Run `work`, telling the bus meanwhile (when there is a delivery) that it is still being worked on. */
export async function keepingAlive<T>(ctx: FlexEventContext | undefined, work: () => Promise<T>): Promise<T> {
  if (!ctx) return work();
  const heartbeat = setInterval(() => ctx.getDelivery().working(), WORKING_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * The registry's view as a service handling a delivery asks for it: a registry nobody can reach is
 * waited for within `FLEX_UNREACHABLE_BUDGET_MS` (transient is not failure), the delivery kept
 * alive meanwhile so that the bus does not hand it to another instance.
 */
export function registrySnapshot(
  runtime: { messaging: Messaging; prefix: string; config: { FLEX_UNREACHABLE_BUDGET_MS: number } },
  ctx: FlexEventContext | undefined,
): Promise<CapabilitySnapshot> {
  const { messaging, prefix, config } = runtime;
  return keepingAlive(ctx, () =>
    fetchCapabilitySnapshot(messaging, prefix, SNAPSHOT_TIMEOUT_MS, config.FLEX_UNREACHABLE_BUDGET_MS),
  );
}

/**
 * {@link registrySnapshot} through the snapshot the process keeps between the registry's change
 * notices (`runtime.registrySnapshots`): what the planner, the validator and a registration look-up use.
 */
export function keptRegistrySnapshot(
  runtime: Parameters<typeof registrySnapshot>[0] & {
    registrySnapshots: { get(fetch: () => Promise<CapabilitySnapshot>): Promise<CapabilitySnapshot> };
  },
  ctx: FlexEventContext | undefined,
): Promise<CapabilitySnapshot> {
  const { messaging, prefix, config } = runtime;
  return keepingAlive(ctx, () =>
    runtime.registrySnapshots.get(() =>
      fetchCapabilitySnapshot(messaging, prefix, SNAPSHOT_TIMEOUT_MS, config.FLEX_UNREACHABLE_BUDGET_MS),
    ),
  );
}

/** Active registrations, sorted by id so every consumer sees the same order. */
export function activeRegistrations(snapshot: CapabilitySnapshot): CapabilityRegistration[] {
  return snapshot.capabilities
    .filter((c) => c.status === 'active')
    .map((c) => c.registration)
    .sort((a, b) => (a.capabilityId < b.capabilityId ? -1 : a.capabilityId > b.capabilityId ? 1 : 0));
}
