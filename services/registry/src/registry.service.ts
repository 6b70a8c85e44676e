import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { contentHash } from '@flex/contracts';
import { registrySubjects, type IncomingRequest } from '@flex/bus';
import type { StoredEvent } from '@flex/event-store';
import { listCapabilityInstances } from '@flex/read-models';
import { RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { inRemoteSpan, SpanKind } from '@flex/tracing';
import { CapabilityCommands, type Applied } from './capability/capability.commands';
import { ownedByAnother, type RegistryCommand } from './capability/capability.decide';
import { buildSnapshot, type RegistrySnapshot } from './capability/capability.view';
import { findStaleInstances, lastSeenAt, touchLiveness } from './capability/liveness.repository';
import { OwnerCache } from './capability/owner-cache';
import { RegistrationLimiter } from './capability/registration-rate';
import { CapabilityOwnedError, RegistrationRateLimitedError } from './registry.errors';
import {
  askerOf,
  checkSubjectCapability,
  parseAssignOwner,
  parseDeregister,
  parseHeartbeat,
  parseRegister,
} from './registry.requests';
import {
  PROJECTIONS,
  REGISTRY_OPTIONS,
  type ProjectionCatchUp,
  type RegistryOptions,
} from './registry.tokens';

export { RegistrationRejected } from './registry.errors';

export interface RegistrationReply {
  ok: true;
  capabilityId: string;
  instanceId: string;
  status: 'active';
  registeredAt: string;
}

export interface OwnerAssignedReply {
  ok: true;
  capabilityId: string;
  owner: string;
  previousOwner?: string;
}

type RegistryRequest = 'register' | 'deregister' | 'snapshot' | 'assign_owner';
type Handler = (req: IncomingRequest) => Promise<unknown>;
/**
 * The capability registry: registration, heartbeats, expiry, ownership and snapshots over plain
 * messaging (request/reply in queue group `registry`, so replicas share the work). Who asks is the
 * identity the subject names (NATS permissions pin it); a capability belongs to the first identity
 * that registers it. Changes are events on the capability's stream; the capabilities read model
 * answers snapshots. Time is `runtime.clock`.
 */
@Injectable()
export class RegistryService implements OnModuleInit, OnModuleDestroy {
  private readonly stops: Array<() => Promise<void>> = [];
  private readonly commands: CapabilityCommands;
  private readonly owners: OwnerCache;
  private readonly limiter: RegistrationLimiter;
  private sweeper?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(PROJECTIONS) projections: ProjectionCatchUp,
    @Inject(REGISTRY_OPTIONS) private readonly options: RegistryOptions,
  ) {
    this.commands = new CapabilityCommands(runtime, projections);
    this.owners = new OwnerCache((id) => this.commands.ownerOf(id));
    this.limiter = new RegistrationLimiter(
      options.registrationRate ?? {
        perMinute: runtime.config.FLEX_REGISTRATIONS_PER_MINUTE,
        burst: runtime.config.FLEX_REGISTRATION_BURST,
      },
    );
  }

  async onModuleInit(): Promise<void> {
    const { messaging, prefix } = this.runtime;
    const subjects = registrySubjects(prefix);
    await this.serveCounted(subjects.registerAll, 'register', (req) => this.register(req));
    await this.serveCounted(subjects.deregisterAll, 'deregister', (req) => this.deregister(req));
    await this.serveCounted(subjects.snapshot, 'snapshot', (req) =>
      // Asked for a run (the planner, validator, executor), the answer is a span of the run's trace.
      inRemoteSpan(req.headers.traceparent, 'registry.snapshot', { kind: SpanKind.SERVER }, () =>
        this.snapshot(),
      ),
    );
    await this.serveCounted(subjects.assignOwner, 'assign_owner', (req) => this.assignOwner(req.data));
    // Every replica sees every heartbeat (Messaging.subscribe has no queue group); touches are idempotent.
    this.stops.push(
      await messaging.subscribe(
        subjects.heartbeatAll,
        (req) =>
          void this.heartbeat(req).catch((error) => this.runtime.logger.warn('heartbeat failed', { error })),
      ),
    );
    const everyMs = this.options.sweepIntervalMs ?? 1000;
    if (everyMs > 0) {
      this.sweeper = setInterval(() => void this.sweep(), everyMs);
      this.sweeper.unref();
    }
  }

  /** Serve `subject` in the `registry` queue group, counting each request this replica takes (its share). */
  private async serveCounted(subject: string, request: RegistryRequest, handle: Handler): Promise<void> {
    const { messaging } = this.runtime;
    const stop = await messaging.serve(subject, { queue: 'registry' }, (req) => {
      this.runtime.metrics.count({ family: 'registryRequests', labels: { request } });
      return handle(req);
    });
    this.stops.push(stop);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.sweeping;
    for (const stop of this.stops.splice(0)) await stop();
  }

  /**
   * `<prefix>.registry.register.<identity>.<capability>`: rate-limited per identity, validated,
   * and refused when another identity owns the capability; otherwise the identity owns it now.
   */
  async register(req: IncomingRequest): Promise<RegistrationReply> {
    const asker = askerOf(req.subject);
    const admitted = this.limiter.take(asker.identity, this.runtime.clock.now().getTime());
    if (!admitted.ok) throw new RegistrationRateLimitedError(admitted.retryAfterMs);
    const { registration, instanceId } = parseRegister(req.data);
    const { capabilityId } = registration;
    checkSubjectCapability(asker, capabilityId);
    const now = this.runtime.clock.now();
    const cmd = {
      kind: 'register',
      registration,
      registrationHash: contentHash(registration),
      instanceId,
      at: now.toISOString(),
      owner: asker.identity,
    } as const;
    // Refused before liveness is touched: another identity's registration changes nothing.
    const refusal = await this.commands.refusalOf(capabilityId, cmd);
    if (refusal) throw new CapabilityOwnedError(capabilityId, refusal.message);
    await touchLiveness(this.runtime.database.db, capabilityId, instanceId, now);
    const applied = await this.decided(capabilityId, cmd);
    const registeredAt = applied.state.instances[instanceId]?.registeredAt ?? now.toISOString();
    return { ok: true, capabilityId, instanceId, status: 'active', registeredAt };
  }

  /** `{ capabilityId, instanceId }` from the owner: refresh liveness, revive the instance if it had gone inactive. */
  async heartbeat(req: IncomingRequest): Promise<void> {
    const beat = parseHeartbeat(req.data);
    if (!beat) return;
    const asker = askerOf(req.subject);
    checkSubjectCapability(asker, beat.capabilityId);
    // From memory: a live instance's heartbeat stays one query. The decider checks again if it acts.
    if (ownedByAnother(await this.owners.ownerOf(beat.capabilityId), asker.identity)) return;
    const { capabilityId, instanceId } = beat;
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
    // A heartbeat gets no reply: a refusal (the owner changed since memory said otherwise) is dropped.
    const applied = await this.commands.apply(capabilityId, {
      kind: 'heartbeat',
      instanceId,
      owner: asker.identity,
    });
    this.owners.remember(capabilityId, applied.state.owner);
    await this.commands.settle(applied.appended);
  }

  /** `{ capabilityId, instanceId?, reason? }` from the owner: without an instance id, every instance says goodbye. */
  async deregister(req: IncomingRequest): Promise<{ ok: true }> {
    const asker = askerOf(req.subject);
    const { capabilityId, instanceId, reason } = parseDeregister(req.data);
    checkSubjectCapability(asker, capabilityId);
    await this.decided(capabilityId, { kind: 'deregister', instanceId, reason, owner: asker.identity });
    return { ok: true };
  }

  /** `{ capabilityId, owner, assignedBy }`: an admin gives the capability to `owner`. */
  async assignOwner(data: unknown): Promise<OwnerAssignedReply> {
    const request = parseAssignOwner(data);
    const { capabilityId, owner, assignedBy } = request;
    const previousOwner = await this.commands.ownerOf(capabilityId);
    await this.decided(capabilityId, { kind: 'assign_owner', owner, assignedBy });
    return { ok: true, capabilityId, owner, ...(previousOwner === undefined ? {} : { previousOwner }) };
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
    let expiredCount = 0;
    const fresh = async (capabilityId: string, instanceId: string, timeoutS: number) => {
      const seen = await lastSeenAt(db, capabilityId, instanceId);
      return seen !== undefined && now.getTime() - seen.getTime() <= timeoutS * 1000;
    };
    for (const stale of await findStaleInstances(db, now)) {
      const { capabilityId, instanceId, timeoutSeconds } = stale;
      if (await fresh(capabilityId, instanceId, timeoutSeconds)) continue;
      const reason = `no heartbeat for ${timeoutSeconds}s (last seen ${stale.lastSeenAt})`;
      const expired = await this.commands.apply(capabilityId, { kind: 'expire', instanceId, reason });
      appended.push(...expired.appended);
      if (expired.appended.length) expiredCount += 1;
      // A heartbeat that landed while the expiry was appended may have seen the instance still active: revive it here.
      if (expired.appended.length && (await fresh(capabilityId, instanceId, timeoutSeconds)))
        appended.push(...(await this.commands.apply(capabilityId, { kind: 'revive', instanceId })).appended);
    }
    await this.commands.settle(appended);
    return expiredCount;
  }

  /** Apply a command; a refusal becomes the error reply, anything appended is settled into the read model. */
  private async decided(capabilityId: string, cmd: RegistryCommand): Promise<Applied> {
    const applied = await this.commands.apply(capabilityId, cmd);
    this.owners.remember(capabilityId, applied.state.owner);
    if (applied.refusal) throw new CapabilityOwnedError(capabilityId, applied.refusal.message);
    await this.commands.settle(applied.appended);
    return applied;
  }
}
