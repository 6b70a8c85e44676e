import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { capabilityStreamId, contentHash } from '@flex/contracts';
import { registrySubjects } from '@flex/bus';
import type { StoredEvent } from '@flex/event-store';
import { listCapabilityInstances } from '@flex/read-models';
import { RUNTIME, runCommand, type CapabilitySnapshot, type CapabilityView, type ServiceRuntime } from '@flex/runtime';
import { sql } from 'kysely';
import { decideCapability, type RegistryCommand } from './capability/capability.decide';
import { evolveCapability, initialCapabilityState } from './capability/capability.state';
import { validateRegistration } from './capability/registration.validate';
import { PROJECTIONS, type ProjectionCatchUp } from './registry.tokens';

export class RegistrationRejected extends Error {
  override readonly name = 'RegistrationRejected';
  readonly code = 'invalid_registration';
  readonly retryable = false;
  constructor(readonly details: unknown) {
    super(`registration rejected: ${JSON.stringify(details)}`);
  }
}

const DEFAULT_INTERVAL_S = 30;

/**
 * The capability registry: registration, heartbeats, expiry and snapshots over plain messaging
 * (request/reply, queue group `registry` so replicas share the work). Changes are events on the
 * capability's stream; the capabilities read model answers snapshots.
 */
@Injectable()
export class RegistryService implements OnModuleInit, OnModuleDestroy {
  private readonly stops: Array<() => Promise<void>> = [];
  private sweeper?: NodeJS.Timeout;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(PROJECTIONS) private readonly projections: ProjectionCatchUp,
  ) {}

  async onModuleInit(): Promise<void> {
    const { messaging, prefix } = this.runtime;
    const subjects = registrySubjects(prefix);
    const queue = { queue: 'registry' };
    this.stops.push(await messaging.serve(subjects.register, queue, (req) => this.register(req.data)));
    this.stops.push(await messaging.serve(subjects.deregister, queue, (req) => this.deregister(req.data)));
    this.stops.push(await messaging.serve(subjects.snapshot, queue, () => this.snapshot()));
    this.stops.push(await messaging.subscribe(subjects.heartbeat, (req) => void this.heartbeat(req.data).catch((error) => this.runtime.logger.warn('heartbeat failed', { error }))));
    this.sweeper = setInterval(() => void this.expireStale().catch((error) => this.runtime.logger.warn('expiry sweep failed', { error })), 1000);
    this.sweeper.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    for (const stop of this.stops.splice(0)) await stop();
  }

  async register(data: unknown): Promise<{ ok: true; capabilityId: string; instanceId: string; status: 'active' }> {
    const body = (data ?? {}) as { registration?: unknown; instanceId?: unknown };
    const check = validateRegistration(body.registration ?? data);
    if (!check.ok) throw new RegistrationRejected(check.issues);
    const registration = check.registration;
    const instanceId = typeof body.instanceId === 'string' && body.instanceId ? body.instanceId : registration.instanceId ?? 'default';
    const at = this.runtime.clock.now().toISOString();
    await this.apply(registration.capabilityId, { kind: 'register', registration, registrationHash: contentHash(registration), instanceId, at });
    await this.touch(registration.capabilityId, instanceId);
    await this.projections.catchUp();
    return { ok: true, capabilityId: registration.capabilityId, instanceId, status: 'active' };
  }

  async heartbeat(data: unknown): Promise<void> {
    const { capabilityId, instanceId } = (data ?? {}) as { capabilityId?: string; instanceId?: string };
    if (typeof capabilityId !== 'string' || typeof instanceId !== 'string') return;
    await this.touch(capabilityId, instanceId);
    const appended = await this.apply(capabilityId, { kind: 'heartbeat', instanceId });
    if (appended.length) await this.projections.catchUp();
  }

  async deregister(data: unknown): Promise<{ ok: true }> {
    const { capabilityId, instanceId, reason } = (data ?? {}) as { capabilityId?: string; instanceId?: string; reason?: string };
    if (typeof capabilityId !== 'string' || typeof instanceId !== 'string') throw new RegistrationRejected([{ path: 'capabilityId', message: 'capabilityId and instanceId are required' }]);
    await this.apply(capabilityId, { kind: 'deregister', instanceId, reason });
    await this.projections.catchUp();
    return { ok: true };
  }

  async snapshot(): Promise<CapabilitySnapshot> {
    const rows = await listCapabilityInstances(this.runtime.database.db);
    const byId = new Map<string, CapabilityView>();
    for (const row of rows) {
      const view = byId.get(row.capabilityId);
      const active = row.status === 'active';
      if (!view) {
        byId.set(row.capabilityId, {
          registration: row.registration,
          status: row.status as CapabilityView['status'],
          activeInstances: active ? 1 : 0,
          registeredAt: row.registeredAt,
          lastSeenAt: row.lastSeenAt ?? row.updatedAt,
        });
        continue;
      }
      if (active) {
        view.activeInstances += 1;
        view.status = 'active';
        view.registration = row.registration;
      }
      if ((row.lastSeenAt ?? '') > view.lastSeenAt) view.lastSeenAt = row.lastSeenAt as string;
    }
    return { capabilities: [...byId.values()] };
  }

  /** Active instances whose last heartbeat is older than their timeout (default 3 × interval) turn inactive. */
  async expireStale(): Promise<void> {
    const now = this.runtime.clock.now().getTime();
    for (const row of await listCapabilityInstances(this.runtime.database.db)) {
      if (row.status !== 'active' || !row.lastSeenAt) continue;
      const hb = row.registration.heartbeat;
      const timeoutS = hb?.timeoutSeconds ?? 3 * (hb?.intervalSeconds ?? DEFAULT_INTERVAL_S);
      if (now - Date.parse(row.lastSeenAt) <= timeoutS * 1000) continue;
      const appended = await this.apply(row.capabilityId, { kind: 'expire', instanceId: row.instanceId, reason: `no heartbeat for ${timeoutS}s` });
      if (appended.length) await this.projections.catchUp();
    }
  }

  private async apply(capabilityId: string, cmd: RegistryCommand): Promise<StoredEvent[]> {
    const result = await runCommand({
      store: this.runtime.store,
      streamId: capabilityStreamId(capabilityId),
      initial: initialCapabilityState,
      evolve: evolveCapability,
      decide: (state) => decideCapability(state, cmd),
      metadata: () => ({ correlationId: capabilityId, producer: 'registry', actor: 'instanceId' in cmd ? cmd.instanceId : undefined }),
      clock: this.runtime.clock,
      ids: this.runtime.ids,
    });
    return result.appended;
  }

  private async touch(capabilityId: string, instanceId: string): Promise<void> {
    const at = this.runtime.clock.now().toISOString();
    await sql`insert into capability_liveness (capability_id, instance_id, last_seen_at) values (${capabilityId}, ${instanceId}, ${at})
      on conflict (capability_id, instance_id) do update set last_seen_at = excluded.last_seen_at`.execute(this.runtime.database.db);
  }
}
