const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

/**
 * json-logic-js's `var` with its hole closed: it reads own properties of objects and arrays only,
 * so `constructor`, `__proto__` or anything of a prototype is never reached. The one exception is
 * a string's `length` (UTF-16 units, as json-logic-js reads it), which length constraints on
 * texts need. A path missing from the data gives the default (`null` when there is none).
 */
export function readVar(data: unknown, path: unknown, fallback: unknown): unknown {
  const key = Array.isArray(path) ? path[0] : path;
  const otherwise =
    Array.isArray(path) && path.length > 1 ? path[1] : fallback === undefined ? null : fallback;
  if (key === undefined || key === null || key === '') return data;
  let current = data;
  for (const segment of String(key).split('.')) {
    if (typeof current === 'string' && segment === 'length') {
      current = current.length;
      continue;
    }
    if (FORBIDDEN_SEGMENTS.has(segment) || current === null || typeof current !== 'object') return otherwise;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return otherwise;
    current = Reflect.get(current, segment);
  }
  return current === undefined ? otherwise : current;
}
