import { decision } from '@flex/decider';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { capabilityStreamId, contentHash } from '@flex/contracts';
import { registrySubjects } from '@flex/bus';
import type { StoredEvent } from '@flex/event-store';
import { listCapabilityInstances } from '@flex/read-models';
import { RUNTIME, runCommand, type ServiceRuntime } from '@flex/runtime';
import { decideCapability, type RegistryCommand } from './capability/capability.decide';
import { evolveCapability, initialCapabilityState } from './capability/capability.state';
import { buildSnapshot, type RegistrySnapshot } from './capability/capability.view';
import {
  findStaleInstances,
  lastSeenAt,
  projectedThrough,
  touchLiveness,
} from './capability/liveness.repository';
import {
  describeIssues,
  validateRegistration,
  type RegistrationIssue,
} from './capability/registration.validate';
import {
  PROJECTIONS,
  REGISTRY_OPTIONS,
  type ProjectionCatchUp,
  type RegistryOptions,
} from './registry.tokens';

/** The registry refused a registration or a deregistration: the reply names each path and reason. */
export class RegistrationRejected extends Error {
  override readonly name = 'RegistrationRejected';
  readonly code = 'invalid_registration';
  readonly retryable = false;
  readonly details: { issues: RegistrationIssue[] };
  constructor(issues: RegistrationIssue[]) {
    super(`registration rejected: ${describeIssues(issues)}`);
    this.details = { issues };
  }
}

export interface RegistrationReply {
  ok: true;
  capabilityId: string;
  instanceId: string;
  status: 'active';
  registeredAt: string;
}

/**
 * The capability registry: registration, heartbeats, expiry and snapshots over plain messaging
 * (request/reply in queue group `registry`, so replicas share the work). Changes are events on the
 * capability's stream; the capabilities read model answers snapshots. Time is `runtime.clock`.
 */
@Injectable()
export class RegistryService implements OnModuleInit, OnModuleDestroy {
  private readonly stops: Array<() => Promise<void>> = [];
  private sweeper?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(PROJECTIONS) private readonly projections: ProjectionCatchUp,
    @Inject(REGISTRY_OPTIONS) private readonly options: RegistryOptions,
  ) {}

  async onModuleInit(): Promise<void> {
    const { messaging, prefix } = this.runtime;
    const subjects = registrySubjects(prefix);
    const queue = { queue: 'registry' };
    this.stops.push(await messaging.serve(subjects.register, queue, (req) => this.register(req.data)));
    this.stops.push(await messaging.serve(subjects.deregister, queue, (req) => this.deregister(req.data)));
    this.stops.push(await messaging.serve(subjects.snapshot, queue, () => this.snapshot()));
    // Every replica sees every heartbeat (Messaging.subscribe has no queue group); touches are idempotent.
    this.stops.push(
      await messaging.subscribe(
        subjects.heartbeat,
        (req) =>
          void this.heartbeat(req.data).catch((error) =>
            this.runtime.logger.warn('heartbeat failed', { error }),
          ),
      ),
    );
    const everyMs = this.options.sweepIntervalMs ?? 1000;
    if (everyMs > 0) {
      this.sweeper = setInterval(() => void this.sweep(), everyMs);
      this.sweeper.unref();
    }
  }

  async onModuleDestroy(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.sweeping;
    for (const stop of this.stops.splice(0)) await stop();
  }

  async register(data: unknown): Promise<RegistrationReply> {
    const body = (data ?? {}) as { registration?: unknown; instanceId?: unknown };
    const check = validateRegistration(body.registration ?? data);
    if (!check.ok) throw new RegistrationRejected(check.issues);
    const registration = check.registration;
    const instanceId =
      typeof body.instanceId === 'string' && body.instanceId
        ? body.instanceId
        : (registration.instanceId ?? 'default');
    const now = this.runtime.clock.now();
    await touchLiveness(this.runtime.database.db, registration.capabilityId, instanceId, now);
    const { state, appended } = await this.apply(registration.capabilityId, {
      kind: 'register',
      registration,
      registrationHash: contentHash(registration),
      instanceId,
      at: now.toISOString(),
    });
    await this.settle(appended);
    const registeredAt = state.instances[instanceId]?.registeredAt ?? now.toISOString();
    return { ok: true, capabilityId: registration.capabilityId, instanceId, status: 'active', registeredAt };
  }

  /** `{ capabilityId, instanceId }`: refresh liveness, and revive the instance if it had gone inactive. */
  async heartbeat(data: unknown): Promise<void> {
    const { capabilityId, instanceId } = (data ?? {}) as { capabilityId?: unknown; instanceId?: unknown };
    if (typeof capabilityId !== 'string' || typeof instanceId !== 'string' || !capabilityId || !instanceId)
      return;
    // Liveness first, so a sweep running between the two steps cannot expire the instance it revives.
    const touch = await touchLiveness(
      this.runtime.database.db,
      capabilityId,
      instanceId,
      this.runtime.clock.now(),
    );
    // Only an instance that is (or, after a silence, may just have been made) inactive needs the
    // event stream; the decider has the last word. A live instance's heartbeat is one query.
    if (touch.status !== 'inactive' && !(touch.status === 'active' && touch.endsSilence)) return;
    await this.settle((await this.apply(capabilityId, { kind: 'heartbeat', instanceId })).appended);
  }

  /** `{ capabilityId, instanceId?, reason? }`: without an instance id, every instance says goodbye. */
  async deregister(data: unknown): Promise<{ ok: true }> {
    const { capabilityId, instanceId, reason } = (data ?? {}) as {
      capabilityId?: unknown;
      instanceId?: unknown;
      reason?: unknown;
    };
    if (typeof capabilityId !== 'string' || !capabilityId)
      throw new RegistrationRejected([
        { path: 'capabilityId', code: 'invalid_registration', message: 'capabilityId is required' },
      ]);
    if (instanceId !== undefined && typeof instanceId !== 'string')
      throw new RegistrationRejected([
        { path: 'instanceId', code: 'invalid_registration', message: 'instanceId must be a string' },
      ]);
    const { appended } = await this.apply(capabilityId, {
      kind: 'deregister',
      instanceId,
      reason: typeof reason === 'string' ? reason.slice(0, 500) : undefined,
    });
    await this.settle(appended);
    return { ok: true };
  }

  /** Every capability with its instances, from the read model (what the planner and executor use). */
  async snapshot(): Promise<RegistrySnapshot> {
    return buildSnapshot(await listCapabilityInstances(this.runtime.database.db));
  }

  /** One sweep at a time; a failure is logged and the next tick tries again. */
  sweep(): Promise<void> {
    const running =
      this.sweeping ??
      this.expireStale()
        .then(
          () => undefined,
          (error: unknown) => this.runtime.logger.warn('expiry sweep failed', { error }),
        )
        .finally(() => {
          this.sweeping = undefined;
        });
    this.sweeping = running;
    return running;
  }

  /** Active instances whose last heartbeat is older than their timeout (default 3 × interval) turn inactive. Returns how many. */
  async expireStale(): Promise<number> {
    const { db } = this.runtime.database;
    const now = this.runtime.clock.now();
    const appended: StoredEvent[] = [];
    const fresh = async (capabilityId: string, instanceId: string, timeoutS: number) => {
      const seen = await lastSeenAt(db, capabilityId, instanceId);
      return seen !== undefined && now.getTime() - seen.getTime() <= timeoutS * 1000;
    };
    for (const stale of await findStaleInstances(db, now)) {
      const { capabilityId, instanceId, timeoutSeconds } = stale;
      if (await fresh(capabilityId, instanceId, timeoutSeconds)) continue;
      const expired = await this.apply(capabilityId, {
        kind: 'expire',
        instanceId,
        reason: `no heartbeat for ${timeoutSeconds}s (last seen ${stale.lastSeenAt})`,
      });
      appended.push(...expired.appended);
      // A heartbeat that landed while the expiry was appended may have seen the instance still active: revive it here.
      if (expired.appended.length && (await fresh(capabilityId, instanceId, timeoutSeconds)))
        appended.push(...(await this.apply(capabilityId, { kind: 'heartbeat', instanceId })).appended);
    }
    await this.settle(appended);
    return appended.filter((e) => (e.payload as { status?: string }).status === 'inactive').length;
  }

  /**
   * Read your writes: catch the read model up until it holds what was just appended. One catch-up
   * can come back short while any transaction is open on the server (the tailer is gap-safe), so
   * poll, briefly and bounded; the snapshot is at worst a moment stale, never wrong for long.
   */
  private async settle(appended: readonly StoredEvent[], timeoutMs = 5_000): Promise<void> {
    if (appended.length === 0) return;
    const last = appended[appended.length - 1].position;
    const deadline = Date.now() + timeoutMs;
    for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
      await this.projections.catchUp();
      if (await projectedThrough(this.runtime.database.db, 'capabilities', last)) return;
      if (Date.now() > deadline) {
        this.runtime.logger.warn("the capabilities read model is behind the registry's last append", {
          position: last,
        });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  private async apply(
    capabilityId: string,
    cmd: RegistryCommand,
  ): Promise<{ appended: StoredEvent[]; state: ReturnType<typeof initialCapabilityState> }> {
    const result = await runCommand({
      store: this.runtime.store,
      streamId: capabilityStreamId(capabilityId),
      fold: { initialState: initialCapabilityState, evolve: evolveCapability },
      decide: (state) => decision(decideCapability(state, cmd, capabilityId)),
      metadata: () => ({ correlationId: capabilityId, producer: 'registry', actor: cmd.instanceId }),
      clock: this.runtime.clock,
      ids: this.runtime.ids,
    });
    return { appended: result.appended, state: result.state };
  }
}
