import type Ajv from 'ajv';
import { compileSafePattern } from '../regex/safe-regexp';
import { formatPath, type PathSegment } from './json-path';
import type { SchemaIssue } from './schema-issue';

// Where subschemas live (draft-07 plus the later names Ajv also reads); everything else is data.
const ONE_SCHEMA = new Set([
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
const SCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_MAP = new Set([
  'properties',
  'patternProperties',
  'definitions',
  '$defs',
  'dependencies',
  'dependentSchemas',
]);
// Values that are instance data, not schema: a `$data` or `$ref` key inside them means nothing.
const DATA_VALUED = new Set(['enum', 'const', 'default', 'examples']);

/**
 * Walks the schema keyword by keyword (it is already known to be small and shallow) and reports
 * what Flex refuses in a caller's schema, each with its path: unknown keywords, `$data`,
 * `$ref`s that leave the document, `$async`, and patterns that are unsafe or unsupported.
 */
export function checkSchemaKeywords(schema: unknown, base: string, ajv: Ajv): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  visit(schema, [], { base, ajv, issues });
  return issues;
}

interface Walk {
  readonly base: string;
  readonly ajv: Ajv;
  readonly issues: SchemaIssue[];
}

function visit(schema: unknown, path: PathSegment[], walk: Walk): void {
  if (!isObject(schema)) return;
  for (const [keyword, value] of Object.entries(schema)) {
    const at = [...path, keyword];
    checkKeyword(keyword, value, at, walk);
    for (const [sub, where] of subschemasOf(keyword, value, at)) visit(sub, where, walk);
  }
}

/**
 * The subschema positions under one keyword of a schema (`at` is the keyword's path), each with its
 * path; what stands there may be any value (only an object or a boolean is a schema).
 */
export function subschemasOf(
  keyword: string,
  value: unknown,
  at: PathSegment[],
): Array<[unknown, PathSegment[]]> {
  if (ONE_SCHEMA.has(keyword)) return [[value, at]];
  if ((SCHEMA_LIST.has(keyword) || keyword === 'items') && Array.isArray(value))
    return value.map((sub, i) => [sub, [...at, i]]);
  if (keyword === 'items') return [[value, at]];
  if (SCHEMA_MAP.has(keyword) && isObject(value))
    return Object.entries(value).map(([name, sub]) => [sub, [...at, name]]);
  return [];
}

function checkKeyword(keyword: string, value: unknown, at: PathSegment[], walk: Walk): void {
  const report = (code: SchemaIssue['code'], message: string, where: PathSegment[] = at): void => {
    walk.issues.push({ path: formatPath(walk.base, where), code, message });
  };
  if (keyword === '$data') return report('DATA_REF', '$data references are not allowed');
  if (keyword === '$async') return report('ASYNC_SCHEMA', 'asynchronous schemas are not allowed');
  if (!Object.prototype.hasOwnProperty.call(walk.ajv.RULES.keywords, keyword))
    return report('UNKNOWN_KEYWORD', `unknown keyword "${keyword}" (strict mode)`);
  if (keyword === '$ref' && typeof value === 'string' && !value.startsWith('#')) {
    return report(
      'REMOTE_REF',
      `$ref "${value}" points outside this schema; only local "#..." references are allowed`,
    );
  }
  if (keyword === 'pattern' && typeof value === 'string') return checkPattern(value, at, report);
  if (keyword === 'patternProperties' && isObject(value)) {
    for (const source of Object.keys(value)) checkPattern(source, [...at, source], report);
  }
  const holdsSchemas =
    ONE_SCHEMA.has(keyword) || SCHEMA_LIST.has(keyword) || SCHEMA_MAP.has(keyword) || keyword === 'items';
  if (!holdsSchemas && !DATA_VALUED.has(keyword) && isObject(value) && '$data' in value) {
    report('DATA_REF', `"${keyword}" takes its value from the data ($data), which is not allowed`);
  }
}

function checkPattern(
  source: string,
  at: PathSegment[],
  report: (code: SchemaIssue['code'], message: string, where?: PathSegment[]) => void,
): void {
  const result = compileSafePattern(source);
  if (!result.ok) report(result.code, result.message, at);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
