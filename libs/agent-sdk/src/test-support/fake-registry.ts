import { decodeSubjectToken, registryAgentTokens, registrySubjects, type Messaging } from '@flex/bus';

export interface Registered {
  registration: { capabilityId: string; instanceId?: string } & Record<string, unknown>;
  instanceId: string;
  /** The identity the subject named (not part of the body). */
  identity?: string;
}

export interface Heartbeat {
  capabilityId: string;
  instanceId: string;
  at: string;
}

export interface Deregistered {
  capabilityId: string;
  instanceId: string;
  reason: string;
}

/**
 * The registry's side of the wire protocol, and no more: answers register (or refuses it),
 * records heartbeats and deregistrations. What the real registry service implements.
 */
export class FakeRegistry {
  readonly registered: Registered[] = [];
  readonly heartbeats: Heartbeat[] = [];
  readonly deregistered: Deregistered[] = [];
  private stops: Array<() => Promise<void>> = [];

  private constructor(private readonly refuse?: (payload: Registered) => string | undefined) {}

  static async start(
    messaging: Messaging,
    prefix: string,
    refuse?: (payload: Registered) => string | undefined,
  ): Promise<FakeRegistry> {
    const registry = new FakeRegistry(refuse);
    const subjects = registrySubjects(prefix);
    registry.stops = [
      await messaging.serve(subjects.registerAll, {}, async (req) =>
        registry.register({ ...(req.data as Registered), identity: identityOf(req.subject) }),
      ),
      await messaging.subscribe(
        subjects.heartbeatAll,
        (req) => void registry.heartbeats.push(req.data as Heartbeat),
      ),
      await messaging.serve(subjects.deregisterAll, {}, async (req) => {
        registry.deregistered.push(req.data as Deregistered);
        return { ok: true };
      }),
    ];
    return registry;
  }

  beatsOf(instanceId: string): number {
    return this.heartbeats.filter((h) => h.instanceId === instanceId).length;
  }

  async stop(): Promise<void> {
    await Promise.all(this.stops.map((stop) => stop()));
    this.stops = [];
  }

  private register(payload: Registered) {
    const reason = this.refuse?.(payload);
    if (reason)
      throw Object.assign(new Error(reason), {
        code: 'invalid_registration',
        retryable: false,
        details: { reason },
      });
    this.registered.push(payload);
    return {
      ok: true,
      capabilityId: payload.registration.capabilityId,
      instanceId: payload.instanceId,
      status: 'active',
    };
  }
}

function identityOf(subject: string): string | undefined {
  const tokens = registryAgentTokens(subject);
  return tokens ? decodeSubjectToken(tokens.identity) : undefined;
}
