import { formatPath, type PathSegment } from './json-path';
import type { SchemaIssue, UntrustedSchemaLimits } from './schema-issue';

interface Visit {
  readonly value: unknown;
  readonly depth: number;
  readonly path: readonly PathSegment[];
}

/**
 * Size, depth and node-count caps, checked before anything recursive (JSON.stringify, hashing,
 * Ajv) touches the schema: the walk is iterative and stops at the first cap it passes, so a
 * hostile schema (or a cyclic object) costs at most `maxNodes` steps.
 */
export function checkSchemaShape(
  schema: unknown,
  base: string,
  limits: UntrustedSchemaLimits,
): SchemaIssue[] {
  if (typeof schema !== 'boolean' && !isPlainObject(schema)) {
    return [{ path: base, code: 'NOT_A_SCHEMA', message: 'a JSON Schema is an object or a boolean' }];
  }
  const stack: Visit[] = [{ value: schema, depth: 1, path: [] }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop() as Visit;
    nodes += 1;
    if (nodes > limits.maxNodes) {
      return [
        { path: base, code: 'SCHEMA_TOO_MANY_NODES', message: `more than ${limits.maxNodes} JSON values` },
      ];
    }
    const notJson = describeNonJson(value);
    if (notJson) return [{ path: formatPath(base, path), code: 'NOT_JSON', message: notJson }];
    if (value === null || typeof value !== 'object') continue;
    if (depth > limits.maxDepth) {
      return [
        {
          path: formatPath(base, path),
          code: 'SCHEMA_TOO_DEEP',
          message: `nested deeper than ${limits.maxDepth} levels`,
        },
      ];
    }
    const width = Array.isArray(value) ? value.length : Object.keys(value).length;
    if (nodes + stack.length + width > limits.maxNodes) {
      return [
        { path: base, code: 'SCHEMA_TOO_MANY_NODES', message: `more than ${limits.maxNodes} JSON values` },
      ];
    }
    const entries: Array<[PathSegment, unknown]> = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      stack.push({ value: entries[i][1], depth: depth + 1, path: [...path, entries[i][0]] });
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(schema), 'utf8');
  if (bytes > limits.maxBytes) {
    return [
      {
        path: base,
        code: 'SCHEMA_TOO_LARGE',
        message: `${bytes} bytes of JSON; the limit is ${limits.maxBytes}`,
      },
    ];
  }
  return [];
}

function describeNonJson(value: unknown): string | null {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : 'numbers must be finite';
    case 'object':
      return value === null || Array.isArray(value) || isPlainObject(value)
        ? null
        : 'only plain objects and arrays are JSON';
    default:
      return `a ${typeof value} is not a JSON value`;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
