export {
  andThen,
  decision,
  effectsOf,
  NO_DECISION,
  type Decider,
  type Decision,
  type StateFold,
} from './decider';
