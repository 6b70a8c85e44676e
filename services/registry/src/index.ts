export { RegistryModule } from './registry.module';
export { RegistryService, RegistrationRejected, type RegistrationReply } from './registry.service';
export { type RegistryOptions } from './registry.tokens';
export {
  validateRegistration,
  describeIssues,
  type RegistrationIssue,
  type RegistrationCheck,
} from './capability/registration.validate';
export { decideCapability, type RegistryCommand } from './capability/capability.decide';
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
