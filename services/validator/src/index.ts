export { ValidatorModule } from './validator.module';
export { mergeDiagnostics, satisfactionScore, DEFAULT_WEIGHTS } from './validation/diagnostics-merger';
export { decideValidation } from './validation/validator.decide';
