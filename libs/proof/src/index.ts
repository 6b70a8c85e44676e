export { allOf, type Finding, type JsonSchema, type Verdict } from './verdict';
