export { RegistryModule } from './registry.module';
export { RegistryService, type OwnerAssignedReply, type RegistrationReply } from './registry.service';
export { CapabilityOwnedError, RegistrationRateLimitedError, RegistrationRejected } from './registry.errors';
export { AssignOwnerRequestSchema, type AssignOwnerRequest } from './registry.requests';
export { RegistrationLimiter, type Admission, type RegistrationRate } from './capability/registration-rate';
export { type RegistryOptions } from './registry.tokens';
export {
  validateRegistration,
  describeIssues,
  type RegistrationIssue,
  type RegistrationCheck,
} from './capability/registration.validate';
export {
  decideCapability,
  ownedByAnother,
  registryRefusalOf,
  type RegistryCommand,
  type RegistryDecision,
  type RegistryRefusal,
} from './capability/capability.decide';
export {
  evolveCapability,
  initialCapabilityState,
  type CapabilityState,
} from './capability/capability.state';
export {
  buildSnapshot,
  type InstanceView,
  type RegistryCapabilityView,
  type RegistrySnapshot,
} from './capability/capability.view';
export {
  findStaleInstances,
  DEFAULT_HEARTBEAT_INTERVAL_S,
  type StaleInstance,
} from './capability/liveness.repository';
