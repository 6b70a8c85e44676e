export { RegistryModule } from './registry.module';
export { RegistryService, RegistrationRejected } from './registry.service';
export { validateRegistration } from './capability/registration.validate';
export { decideCapability } from './capability/capability.decide';
export { evolveCapability, initialCapabilityState } from './capability/capability.state';
