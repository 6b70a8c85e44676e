import type { Finding } from '../verdict';
import { boundFinding, lowerBound, upperBound, type Bound } from './bounds';
import { childPointer, owner, uniqueKeywords, type Conjunct, type Recurse } from './conjunct';
import { isClosed, namedSchemas, requiredNames } from './property-schemas';
import { rejectionOf } from './schema-check';
import { entryOf, schemaAt, schemaMapAt } from './schema-read';

/**
 * Why no object satisfies the conjuncts: property-count bounds, a required property some conjunct
 * forbids or whose value no schema pair admits, or more properties asked for than closed schemas
 * allow. Optional properties are not searched: an object can always leave them out.
 */
export function objectConflicts(
  conjuncts: readonly Conjunct[],
  pointer: string,
  recurse: Recurse,
): Finding[] {
  const lo = lowerBound(conjuncts, 'minProperties');
  const hi = upperBound(conjuncts, 'maxProperties');
  if (lo !== undefined && hi !== undefined && lo.value > hi.value) return [boundFinding(pointer, lo, hi)];
  const required = requiredNames(conjuncts);
  if (hi !== undefined && required.size > hi.value) {
    const names = [...required.keys()].map((n) => JSON.stringify(n)).join(', ');
    const bound = `${owner(hi.label)} maxProperties ${hi.value}`;
    const message = `${required.size} required properties (${names}) exceed ${bound}`;
    return [{ pointer, keywords: ['required', 'maxProperties'], message }];
  }
  for (const [name, by] of required) {
    const found = requiredConflicts(conjuncts, name, by, pointer, recurse);
    if (found.length > 0) return found;
  }
  return closedConflicts(conjuncts, lo, pointer);
}

function requiredConflicts(
  conjuncts: readonly Conjunct[],
  name: string,
  by: string,
  pointer: string,
  recurse: Recurse,
): Finding[] {
  const at = childPointer(pointer, name);
  const quoted = JSON.stringify(name);
  const requirer = `${by} requires ${quoted}`;
  for (const { schema, label } of conjuncts) {
    const names = schemaAt(schema, 'propertyNames');
    const rejection = names === undefined ? undefined : rejectionOf(name, names);
    if (rejection !== undefined) {
      const refusal = `${owner(label)} propertyNames does not allow (it fails ${rejection.keyword})`;
      const message = `${requirer}, a name ${refusal}`;
      return [
        { pointer: at, keywords: uniqueKeywords(['required', 'propertyNames', rejection.keyword]), message },
      ];
    }
  }
  const parts = conjuncts.flatMap(({ schema, label }) =>
    namedSchemas(schema, name).map((n) => ({ ...n, label })),
  );
  const forbidding = parts.find((part) => part.schema === false);
  if (forbidding !== undefined) {
    const how =
      forbidding.via === 'additionalProperties'
        ? `has additionalProperties: false and no ${quoted} among its properties`
        : `has ${forbidding.via} ${quoted}: false`;
    return [
      {
        pointer: at,
        keywords: ['required', forbidding.via],
        message: `${requirer} but ${owner(forbidding.label)} schema ${how}`,
      },
    ];
  }
  const found = recurse(parts, at);
  return found.map((f) => ({
    ...f,
    keywords: uniqueKeywords([...f.keywords, 'required']),
    message: `${f.message}; ${requirer}`,
  }));
}

function closedConflicts(conjuncts: readonly Conjunct[], lo: Bound | undefined, pointer: string): Finding[] {
  const closed = conjuncts.filter((c) => isClosed(c.schema));
  if (lo === undefined || lo.value < 1 || closed.length === 0) return [];
  const allowed = Object.keys(schemaMapAt(closed[0].schema, 'properties') ?? {}).filter((name) =>
    conjuncts.every((c) => {
      const own = entryOf(schemaMapAt(c.schema, 'properties'), name);
      return own !== false && (own !== undefined || !isClosed(c.schema));
    }),
  );
  if (allowed.length >= lo.value) return [];
  const names = allowed.map((n) => JSON.stringify(n)).join(', ') || 'none';
  const least = `${owner(lo.label)} minProperties ${lo.value}`;
  const closing = `${owner(closed[0].label)} additionalProperties: false admits (${names})`;
  const message = `${least} exceeds the ${allowed.length} properties ${closing}`;
  return [{ pointer, keywords: ['minProperties', 'additionalProperties'], message }];
}
