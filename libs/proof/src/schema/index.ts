export { conflictsOf } from './conflicts';
export { ANY_ITEM } from './conjunct';
export { satisfiability, type Satisfiability } from './satisfiability';
export { arbitraryOf, SchemaArbitraryError } from './schema-arbitrary';
export { attemptWitness, witnessOf, type WitnessAttempt } from './witness';
