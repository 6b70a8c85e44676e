import { registrySubjects } from '@flex/bus';
import { capabilityStreamId } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { loadState, runCommand, type ServiceRuntime } from '@flex/runtime';
import type { ProjectionCatchUp } from '../registry.tokens';
import {
  decideCapability,
  registryRefusalOf,
  type RegistryCommand,
  type RegistryRefusal,
} from './capability.decide';
import { evolveCapability, initialCapabilityState, type CapabilityState } from './capability.state';

const CAPABILITY_FOLD = { initialState: initialCapabilityState, evolve: evolveCapability };

export interface Applied {
  appended: StoredEvent[];
  state: CapabilityState;
  refusal?: RegistryRefusal;
}

/** The registry's adapter to the store: load a capability's stream, decide, append; and read-your-writes. */
export class CapabilityCommands {
  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly projections: ProjectionCatchUp,
  ) {}

  async apply(capabilityId: string, cmd: RegistryCommand): Promise<Applied> {
    const result = await runCommand({
      store: this.runtime.store,
      streamId: capabilityStreamId(capabilityId),
      fold: CAPABILITY_FOLD,
      decide: (state) => decideCapability(state, cmd, capabilityId),
      metadata: () => ({ correlationId: capabilityId, producer: 'registry', actor: actorOf(cmd) }),
      clock: this.runtime.clock,
      ids: this.runtime.ids,
      cache: this.runtime.streamStates,
    });
    return { appended: result.appended, state: result.state, refusal: registryRefusalOf(result.decision) };
  }

  /** What the decider would refuse `cmd` for on the stream as it is now, without appending anything. */
  async refusalOf(capabilityId: string, cmd: RegistryCommand): Promise<RegistryRefusal | undefined> {
    const state = await this.load(capabilityId);
    return registryRefusalOf(decideCapability(state, cmd, capabilityId));
  }

  /** The capability's owner as its stream says now (undefined: nobody owns it yet). */
  async ownerOf(capabilityId: string): Promise<string | undefined> {
    return (await this.load(capabilityId)).owner;
  }

  private async load(capabilityId: string): Promise<CapabilityState> {
    const { store, streamStates } = this.runtime;
    return (await loadState(store, capabilityStreamId(capabilityId), CAPABILITY_FOLD, streamStates)).state;
  }

  /**
   * Read your writes: catch the read models up until they hold what was just appended (bounded: a
   * long transaction elsewhere holds the gap-safe tail back; the snapshot is then a moment stale),
   * then tell the processes keeping a snapshot (`registry.changed`), before anyone gets a reply.
   */
  async settle(appended: readonly StoredEvent[], timeoutMs = 5_000): Promise<void> {
    if (appended.length === 0) return;
    const { logger, messaging, prefix } = this.runtime;
    const last = appended[appended.length - 1].position;
    if (!(await this.projections.catchUpThrough(last, timeoutMs)))
      logger.warn("the capabilities read model is behind the registry's last append", { position: last });
    // Best effort: a notice lost costs a kept snapshot at most FLEX_REGISTRY_SNAPSHOT_MAX_AGE_MS.
    await messaging
      .publish(registrySubjects(prefix).changed, { position: last })
      .catch((error: unknown) =>
        logger.warn('could not announce a registry change', { error: String(error) }),
      );
  }
}

function actorOf(cmd: RegistryCommand): string {
  switch (cmd.kind) {
    case 'register':
    case 'heartbeat':
    case 'deregister':
      return cmd.owner;
    case 'assign_owner':
      return cmd.assignedBy;
    case 'expire':
    case 'revive':
      return 'registry';
  }
}
