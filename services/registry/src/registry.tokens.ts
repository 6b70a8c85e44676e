import type { RegistrationRate } from './capability/registration-rate';

/** Injection token for whatever keeps the read models current in this process. */
export const PROJECTIONS = Symbol.for('flex.projections');

/** Injection token for {@link RegistryOptions}. */
export const REGISTRY_OPTIONS = Symbol.for('flex.registry.options');

export interface ProjectionCatchUp {
  /** Catch up through `position`; false when `timeoutMs` ran out first. */
  catchUpThrough(position: number, timeoutMs?: number): Promise<boolean>;
}

export interface RegistryOptions {
  /** How often the expiry sweep runs (default 1000 ms; 0 turns the timer off, for tests that sweep by hand). */
  sweepIntervalMs?: number;
  /** Registrations per identity (default FLEX_REGISTRATIONS_PER_MINUTE and FLEX_REGISTRATION_BURST). */
  registrationRate?: RegistrationRate;
}
