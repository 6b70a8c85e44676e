export { ValidatorModule } from './validator.module';
export {
  mergeDiagnostics,
  satisfactionScore,
  dedupeKey,
  DEFAULT_WEIGHTS,
} from './validation/diagnostics-merger';
export {
  decideValidation,
  evolveValidator,
  initialValidatorState,
  type ValidatorState,
} from './validation/validator.decide';
export { planDiagnostics, provePlan } from './validation/prove-plan';
export { validatorReplayAdapter, type ValidatorReplaySettings } from './validation/validator.replay';
