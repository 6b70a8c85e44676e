export type { ArraySet, Domain, ObjectSet, StringSet } from './domain';
export type { NumberRange, NumberSet, Outcomes } from './number-set';
export { constDomain } from './domain-values';
export { domainOf } from './schema-domain';
export {
  absentDomain,
  anyDomain,
  objectDomain,
  type ObjectDomainOptions,
  type Presence,
  type PropertyDomain,
} from './object-domain';
export { DEFAULT_RULE_BUDGET, proveRule, type ProveRuleOptions, type RuleProof } from './prove-rule';
