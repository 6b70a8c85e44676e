import jsonLogic from 'json-logic-js';
import { readVar } from '../read-var';

/**
 * json-logic-js itself, hardened as Flex ran it before its own interpreter: `method` removed and
 * `var` reading own properties only. The oracle of the differential tests: for every allowed
 * operator the interpreter must give what this gives, or throw when this throws.
 */
function install(): typeof jsonLogic {
  jsonLogic.rm_operation('method');
  // json-logic-js calls an operation with the data as `this`.
  jsonLogic.add_operation('var', function safeVar(this: unknown, path?: unknown, fallback?: unknown) {
    return readVar(this, path, fallback);
  } as never);
  return jsonLogic;
}

const oracle = install();

export type OracleOutcome = { ok: true; value: unknown } | { ok: false; error: string };

/** The rule as json-logic-js evaluates it (no budget): its value, or what it threw. */
export function oracleApply(rule: unknown, data: unknown): OracleOutcome {
  try {
    return { ok: true, value: oracle.apply(rule as never, data as never) };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}
