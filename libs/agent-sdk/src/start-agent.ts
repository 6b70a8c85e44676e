import { agentInvokeSubject, registryAgentSubject, type RegistryAgentVerb } from '@flex/bus';
import type { AgentDefinition, RegistrationAck } from './agent.types';
import { describe } from './errors';
import { FacetGuard } from './facet-guard';
import { startHeartbeats } from './heartbeat';
import { Invoker } from './invoker';
import { registerWithRetry } from './registration';
import { forgetSignals, stopOnSignals } from './signals';
import { parseOptions, type ParsedOptions, type StartAgentOptions } from './start-options';

export type { StartAgentOptions } from './start-options';

export interface AgentHandle {
  readonly capabilityId: string;
  readonly instanceId: string;
  /**
   * Resolves once a registry accepted the registration. Rejects when the registry refused it
   * (the agent then stops by itself) or when the agent stopped before any registry answered.
   */
  readonly ready: Promise<RegistrationAck>;
  /** Stop taking invocations, finish those in flight, stop heartbeats, deregister. Idempotent; never exits the process. */
  readonly stop: (reason?: string) => Promise<void>;
}

/**
 * Serve the agent's invoke subject (queue group = capability id, so instances share the load),
 * then register in the background, retrying until a registry answers, and heartbeat once
 * registered. Resolves as soon as the agent serves: a registry that starts later is fine.
 */
export async function startAgent(agent: AgentDefinition, options: StartAgentOptions): Promise<AgentHandle> {
  const o = parseOptions(agent, options);
  const instance = new AgentInstance(agent, o);
  await instance.serve();
  instance.register();
  if (o.handleSignals) stopOnSignals(instance, o.logger);
  o.logger.info('agent_started', { prefix: o.prefix });
  return instance;
}

class AgentInstance implements AgentHandle {
  readonly capabilityId: string;
  readonly instanceId: string;
  /** Set by register(), which startAgent calls before handing the instance out. */
  ready!: Promise<RegistrationAck>;
  private readonly invoker: Invoker;
  private readonly stopping = new AbortController();
  private unserve: () => Promise<void> = async () => undefined;
  private stopHeartbeats: () => void = () => undefined;
  private stopped?: Promise<void>;

  constructor(
    private readonly agent: AgentDefinition,
    private readonly o: ParsedOptions,
  ) {
    this.capabilityId = agent.registration.capabilityId;
    this.instanceId = o.instanceId;
    this.invoker = new Invoker({
      agent,
      guard: new FacetGuard(agent.registration),
      instanceId: o.instanceId,
      cacheSize: o.idempotencyCacheSize,
      logger: o.logger,
    });
  }

  async serve(): Promise<void> {
    // A thrown AgentError travels as the bus's error reply: its code, message, retryable flag and details.
    const subject = agentInvokeSubject(this.o.prefix, this.capabilityId);
    this.unserve = await this.o.messaging.serve(subject, { queue: this.capabilityId }, (req) =>
      this.invoker.handle(req.data, req.headers.traceparent),
    );
  }

  register(): void {
    const { messaging, requestTimeoutMs, registerRetry, logger } = this.o;
    this.ready = registerWithRetry({
      messaging,
      subject: this.subject('register'),
      registration: this.agent.registration,
      instanceId: this.instanceId,
      timeoutMs: requestTimeoutMs,
      retry: registerRetry,
      logger,
      signal: this.stopping.signal,
    }).then((ack) => this.registered(ack));
    this.ready.catch((error: unknown) => this.refused(error));
  }

  /** The registry subject of `verb` for this agent's identity and capability. */
  private subject(verb: RegistryAgentVerb): string {
    return registryAgentSubject(this.o.prefix, verb, this.o.identity, this.capabilityId);
  }

  readonly stop = (reason = 'shutdown'): Promise<void> => (this.stopped ??= this.shutdown(reason));

  private registered(ack: RegistrationAck): RegistrationAck {
    this.o.logger.info('agent_registered', { status: ack.status });
    if (!this.stopping.signal.aborted) {
      const { messaging, heartbeatIntervalMs: intervalMs, logger } = this.o;
      this.stopHeartbeats = startHeartbeats({
        messaging,
        subject: this.subject('heartbeat'),
        capabilityId: this.capabilityId,
        instanceId: this.instanceId,
        intervalMs,
        logger,
      });
    }
    return ack;
  }

  private refused(error: unknown): void {
    if (this.stopping.signal.aborted) return;
    this.o.logger.error('agent_registration_rejected', {
      reason: describe(error),
      code: (error as { code?: unknown }).code,
    });
    void this.stop('registration_rejected');
  }

  private async shutdown(reason: string): Promise<void> {
    this.o.logger.info('agent_stopping', { reason });
    this.stopping.abort();
    // Unsubscribing first lets the queue group route new invocations to the other instances.
    await this.unserve();
    await this.invoker.drain();
    const ack = await this.ready.catch(() => undefined);
    this.stopHeartbeats();
    if (ack) await this.deregister(reason);
    forgetSignals(this);
    this.o.logger.info('agent_stopped', { reason });
  }

  private async deregister(reason: string): Promise<void> {
    try {
      await this.o.messaging.request(
        this.subject('deregister'),
        { capabilityId: this.capabilityId, instanceId: this.instanceId, reason },
        { timeoutMs: this.o.requestTimeoutMs },
      );
      this.o.logger.info('agent_deregistered', { reason });
    } catch (error) {
      this.o.logger.warn('agent_deregister_failed', { reason: describe(error) });
    }
  }
}
