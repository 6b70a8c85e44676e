import { type Conjunct, type Labelled } from './conjunct';
import { schemaListAt, withoutKeyword } from './schema-read';

// More branches than this are not tried one by one (nor nested unions beyond it multiplied out).
const MAX_BRANCHES = 8;

/**
 * The first `anyOf` / `oneOf` of several branches, multiplied out: one conjunction per branch,
 * each with everything else. `undefined` when no conjunct has such a union.
 */
export function splitUnion(conjuncts: readonly Conjunct[]): Labelled[][] | undefined {
  for (const conjunct of conjuncts) {
    for (const keyword of ['anyOf', 'oneOf']) {
      const branches = schemaListAt(conjunct.schema, keyword);
      if (branches === undefined || branches.length < 2) continue;
      const rest: Labelled[] = [
        ...conjuncts.filter((c) => c !== conjunct),
        { schema: withoutKeyword(conjunct.schema, keyword), label: conjunct.label },
      ];
      return branches
        .slice(0, MAX_BRANCHES)
        .map((branch) => [...rest, { schema: branch, label: conjunct.label }]);
    }
  }
  return undefined;
}
