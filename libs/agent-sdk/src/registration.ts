import type { Messaging } from '@flex/bus';
import type { CapabilityRegistration } from '@flex/contracts';
import type { RegistrationAck } from './agent.types';
import { AgentStoppingError, RegistrationRejectedError, describe } from './errors';
import type { AgentLogger } from './logger';

export interface RetryPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
}

export interface RegisterOptions {
  messaging: Messaging;
  subject: string;
  registration: CapabilityRegistration;
  instanceId: string;
  timeoutMs: number;
  retry: RetryPolicy;
  logger: AgentLogger;
  /** Aborting ends the retries (the agent is stopping). */
  signal: AbortSignal;
}

/**
 * Register until a registry answers. No registry yet (no responders, timeout, any retryable
 * error) means wait and try again, with capped, jittered exponential backoff; a refusal is final.
 */
export async function registerWithRetry(o: RegisterOptions): Promise<RegistrationAck> {
  const payload = { registration: { ...o.registration, instanceId: o.instanceId }, instanceId: o.instanceId };
  for (let attempt = 1; ; attempt++) {
    if (o.signal.aborted) throw new AgentStoppingError();
    try {
      return await o.messaging.request<RegistrationAck>(o.subject, payload, { timeoutMs: o.timeoutMs });
    } catch (error) {
      if (o.signal.aborted) throw new AgentStoppingError();
      if (!isRetryable(error)) throw rejected(error);
      const delayMs = backoffDelay(attempt, o.retry);
      o.logger.warn('agent_registry_unavailable', {
        attempt,
        retryInMs: delayMs,
        reason: describe(error),
        code: codeOf(error),
      });
      await sleep(delayMs, o.signal);
    }
  }
}

/** Full backoff with jitter in [delay/2, delay]: instances that lost the registry together do not return together. */
export function backoffDelay(
  attempt: number,
  retry: RetryPolicy,
  random: () => number = Math.random,
): number {
  const capped = Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(capped / 2 + (capped / 2) * random());
}

function isRetryable(error: unknown): boolean {
  return (error as { retryable?: unknown } | null)?.retryable === true;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function rejected(error: unknown): RegistrationRejectedError {
  const details = (error as { details?: unknown } | null)?.details;
  return new RegistrationRejectedError(
    codeOf(error) ?? 'registration_failed',
    describe(error),
    details,
    error,
  );
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
