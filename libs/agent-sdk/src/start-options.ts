import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { assertIdentityName, assertSubjectPrefix, type Messaging } from '@flex/bus';
import type { AgentDefinition } from './agent.types';
import { silentLogger, type AgentLogger } from './logger';
import type { RetryPolicy } from './registration';

export interface StartAgentOptions {
  messaging: Messaging;
  /** Subject prefix shared with the registry and executor. Default `flex`. */
  prefix?: string;
  /**
   * Who registers: the identity that owns the capability (the first to register it). With NATS
   * authentication on, the NATS user this agent connects as; its permissions pin the name.
   * Default `anonymous` (for setups without NATS authentication).
   */
  identity?: string;
  /** Defaults to `<hostname>-<pid>-<random>`. */
  instanceId?: string;
  /** Overrides the registration's `heartbeat.intervalSeconds` (default 30 s); tests use milliseconds. */
  heartbeatIntervalMs?: number;
  /** On SIGTERM/SIGINT: stop (drain, deregister) every agent started with this, then exit. */
  handleSignals?: boolean;
  /** Where lifecycle and invocation events go, one entry per event. Default: nowhere. */
  logger?: AgentLogger;
  /** Timeout of each register/deregister request. Default 5 s. */
  requestTimeoutMs?: number;
  /** Backoff while no registry answers. Default 250 ms doubling to 10 s, jittered. */
  registerRetry?: Partial<RetryPolicy>;
  /** Recent results kept for idempotent replay. Default 1000. */
  idempotencyCacheSize?: number;
}

export interface ParsedOptions extends Required<Omit<StartAgentOptions, 'registerRetry'>> {
  registerRetry: RetryPolicy;
}

const DEFAULT_HEARTBEAT_SECONDS = 30;
/** The identity of agents on a NATS without authentication. */
export const DEFAULT_IDENTITY = 'anonymous';

/** Options parsed once, with defaults, failing fast on values that can never work. */
export function parseOptions(agent: AgentDefinition, options: StartAgentOptions): ParsedOptions {
  if (!options?.messaging) throw new TypeError('startAgent: options.messaging is required');
  const instanceId = options.instanceId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const heartbeatSeconds = agent.registration.heartbeat?.intervalSeconds ?? DEFAULT_HEARTBEAT_SECONDS;
  const parsed: ParsedOptions = {
    messaging: options.messaging,
    prefix: options.prefix ?? 'flex',
    identity: options.identity ?? DEFAULT_IDENTITY,
    instanceId,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? heartbeatSeconds * 1000,
    handleSignals: options.handleSignals ?? false,
    logger: withBindings(options.logger ?? silentLogger, {
      capabilityId: agent.registration.capabilityId,
      instanceId,
    }),
    requestTimeoutMs: options.requestTimeoutMs ?? 5000,
    registerRetry: { initialDelayMs: 250, maxDelayMs: 10_000, ...options.registerRetry },
    idempotencyCacheSize: options.idempotencyCacheSize ?? 1000,
  };
  for (const key of ['heartbeatIntervalMs', 'requestTimeoutMs'] as const) {
    if (!(parsed[key] > 0)) throw new TypeError(`startAgent: ${key} must be positive`);
  }
  const { initialDelayMs, maxDelayMs } = parsed.registerRetry;
  if (!(initialDelayMs > 0 && maxDelayMs >= initialDelayMs))
    throw new TypeError('startAgent: registerRetry needs 0 < initialDelayMs <= maxDelayMs');
  if (!(Number.isInteger(parsed.idempotencyCacheSize) && parsed.idempotencyCacheSize >= 0))
    throw new TypeError('startAgent: idempotencyCacheSize must be a non-negative integer');
  assertSubjectPrefix(parsed.prefix);
  assertIdentityName(parsed.identity);
  return parsed;
}

/** Every entry says which capability and instance it is about. */
function withBindings(logger: AgentLogger, bindings: Record<string, unknown>): AgentLogger {
  const at = (fn: AgentLogger['info']) => (msg: string, data?: Record<string, unknown>) =>
    fn.call(logger, msg, { ...bindings, ...data });
  return { debug: at(logger.debug), info: at(logger.info), warn: at(logger.warn), error: at(logger.error) };
}
