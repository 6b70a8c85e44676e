import type { FlexEventContext } from '@flex/bus';
import type { CapabilityRegistration } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import {
  fetchCapabilitySnapshot,
  keptRegistrySnapshot,
  type CapabilityView,
  type ServiceRuntime,
} from '@flex/runtime';
import type { UnreachableClock } from './run/unreachable.decide';

const SNAPSHOT_TIMEOUT_MS = 3_000;

type Runtime = Pick<ServiceRuntime, 'messaging' | 'prefix' | 'config' | 'clock' | 'registrySnapshots'>;

/**
 * Any registration of the capability, active or not: a human capability need not heartbeat. From
 * the snapshot the process keeps (a registration changes only with the registry's events).
 */
export async function registrationOf(
  runtime: Runtime,
  ctx: FlexEventContext,
  capabilityId: string,
): Promise<CapabilityRegistration | undefined> {
  try {
    const snapshot = await keptRegistrySnapshot(runtime, ctx);
    return snapshot.capabilities.find((c) => c.registration.capabilityId === capabilityId)?.registration;
  } catch {
    return undefined;
  }
}

/** What the registry says of one capability now (one question: a later look will ask again). */
export async function capabilityViewOf(
  runtime: Runtime,
  capabilityId: string,
): Promise<CapabilityView | undefined> {
  try {
    const snapshot = await fetchCapabilitySnapshot(runtime.messaging, runtime.prefix, SNAPSHOT_TIMEOUT_MS);
    return snapshot.capabilities.find((c) => c.registration.capabilityId === capabilityId);
  } catch {
    return undefined;
  }
}

/** Where the wait that began with `since` (a node_start, a hitl_request) stands in its unreachable budget. */
export function unreachableClock(
  runtime: Runtime,
  since: StoredEvent,
  ctx: FlexEventContext,
): UnreachableClock {
  const { clock, config } = runtime;
  return {
    elapsedMs: Math.max(0, clock.now().getTime() - Date.parse(since.timestamp)),
    budgetMs: config.FLEX_UNREACHABLE_BUDGET_MS,
    // One delivery kept in hand for a crash of this executor during the wait.
    deliveriesLeft: config.FLEX_BUS_MAX_DELIVER - ctx.getDelivery().deliveryCount - 1,
    jitter: Math.random(),
  };
}
