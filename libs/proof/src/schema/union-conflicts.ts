import type { Finding } from '../verdict';
import { owner, uniqueKeywords, type Conjunct, type Recurse } from './conjunct';
import { isSchemaObject, schemaAt, schemaListAt, withoutKeyword } from './schema-read';

const UNIONS = ['anyOf', 'oneOf'] as const;

/**
 * A conjunct whose `anyOf` / `oneOf` has no branch compatible with everything else empties the
 * conjunction: a value must satisfy at least one branch (exactly one for `oneOf`, which is more).
 */
export function unionConflicts(conjuncts: readonly Conjunct[], pointer: string, recurse: Recurse): Finding[] {
  for (const conjunct of conjuncts) {
    for (const keyword of UNIONS) {
      const branches = schemaListAt(conjunct.schema, keyword);
      if (branches === undefined || branches.length < 2) continue;
      const rest = [
        ...conjuncts.filter((c) => c !== conjunct),
        { schema: withoutKeyword(conjunct.schema, keyword), label: conjunct.label },
      ];
      const reasons: Finding[] = [];
      for (const branch of branches) {
        const [first] = recurse([...rest, { schema: branch, label: conjunct.label }], pointer);
        if (first === undefined) break;
        reasons.push(first);
      }
      if (reasons.length < branches.length) continue;
      const told = reasons.map(
        (r, i) => `branch ${i + 1}: ${r.message}${r.pointer === pointer ? '' : ` at ${r.pointer}`}`,
      );
      const keywords = uniqueKeywords([keyword, ...reasons.flatMap((r) => r.keywords)]);
      return [
        {
          pointer,
          keywords,
          message: `no branch of ${owner(conjunct.label)} ${keyword} fits: ${told.join('; ')}`,
        },
      ];
    }
  }
  return [];
}

/** `not: true` (or `not: {}`) rejects every value. */
export function notConflicts(conjuncts: readonly Conjunct[], pointer: string): Finding[] {
  for (const { schema, label } of conjuncts) {
    const negated = schemaAt(schema, 'not');
    if (negated === true || (isSchemaObject(negated) && Object.keys(negated).length === 0)) {
      return [
        {
          pointer,
          keywords: ['not'],
          message: `${owner(label)} not: ${JSON.stringify(negated)} rejects every value`,
        },
      ];
    }
  }
  return [];
}
