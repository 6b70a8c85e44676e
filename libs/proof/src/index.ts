export { allOf, type Finding, type JsonSchema, type Verdict } from './verdict';
export { bindContract } from './plan/bind-contract';
export { proveContract, type ContractProof, type Obligation } from './plan/prove-contract';
export {
  chooseCount,
  contractLength,
  ruleLength,
  COUNT_KNOBS,
  lanesFor,
  requestedCount,
  splitCount,
  type Bounds,
} from './plan/array-counts';
export { finalSources, facetForKey, keyOfFacet, sourceNodes, type Source } from './plan/output-sources';
export { facetSchemaOf } from './plan/property-proof';
