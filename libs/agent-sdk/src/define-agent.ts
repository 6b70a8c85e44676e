import { CapabilityRegistrationSchema, type CapabilityRegistrationInput } from '@flex/contracts';
import type { AgentDefinition, AgentHandler } from './agent.types';
import { FacetGuard } from './facet-guard';

export interface AgentSpec {
  /** Validated here; `agentType` defaults to `ai`. */
  registration: CapabilityRegistrationInput;
  handle: AgentHandler;
}

/**
 * An agent is a registration plus a handler. The registration is parsed here, and its facet
 * contracts compiled, so a bad one fails when the module loads rather than at the registry.
 */
export function defineAgent(spec: AgentSpec): AgentDefinition {
  const parsed = CapabilityRegistrationSchema.safeParse(spec.registration);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new TypeError(`defineAgent: invalid registration: ${where}`);
  }
  if (typeof spec.handle !== 'function') throw new TypeError('defineAgent: handle must be a function');
  const registration = parsed.data;
  new FacetGuard(registration); // compiles both contracts: unknown facets or wrong directions throw here
  return Object.freeze({ registration, handle: spec.handle });
}
