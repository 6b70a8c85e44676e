import { formatPath, pointerOf, pointerSegments, type PathSegment } from './json-path';
import type { SchemaIssue } from './schema-issue';
import { isObject, subschemasOf } from './schema-keywords';

// Subschemas checked against the same value as the schema holding them (a `$ref`'s target is one
// too); every other subschema is checked against a part of the value (a property, an item, a name).
const SAME_VALUE = new Set([
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
  'dependencies',
  'dependentSchemas',
]);
// Where a `$ref` may point without being reached from the root otherwise.
const DEFINITIONS = new Set(['$defs', 'definitions']);
// Keywords that move what a local `$ref` resolves against: then only Ajv can tell where one points.
const RESOLUTION_SCOPES = ['$anchor', '$dynamicAnchor', '$recursiveAnchor', '$dynamicRef', '$recursiveRef'];

interface SchemaNode {
  readonly schema: Record<string, unknown>;
  readonly path: PathSegment[];
  /** Pointers of the subschemas checked against the same value (a `$ref`'s target among them). */
  readonly sameValue: string[];
  /** Pointers of every subschema, for what the root reaches. */
  readonly all: string[];
}

/**
 * `$ref` cycles that check a value against itself for ever: `a` is `anyOf: [{ $ref: b }]` and `b`
 * is `allOf: [{ $ref: a }]`, so validating any value against `a` never descends into a property or
 * an item. JSON Schema leaves such a schema's behaviour undefined; Ajv overflows its stack, at
 * compile time or on every value, and the run would only fail once its agents had worked. A cycle
 * that passes through `properties`, `items` and the like is a recursive schema (a tree) and fine.
 * Only what the root reaches counts. A schema with a nested `$id` or an anchor is left to Ajv: a
 * local `$ref` then resolves against a scope this walk does not follow.
 */
export function checkRefCycles(schema: unknown, base: string): SchemaIssue[] {
  if (!isObject(schema)) return [];
  const nodes = new Map<string, SchemaNode>();
  if (!collect(schema, nodes)) return [];
  const reached = reachable(nodes);
  const cycle = findCycle(nodes, reached);
  if (!cycle) return [];
  const at = cycle.find((pointer) => typeof nodes.get(pointer)?.schema.$ref === 'string') ?? cycle[0];
  const node = nodes.get(at) as SchemaNode;
  return [
    {
      path: formatPath(base, [...node.path, '$ref']),
      code: 'REF_CYCLE',
      message:
        `$ref cycle: a value would be checked against ${[...cycle, cycle[0]].join(' → ')} for ever ` +
        '(a schema may refer back to itself only inside a property or an item)',
    },
  ];
}

/** Every schema node by its JSON pointer; false when the schema has scopes this walk cannot follow. */
function collect(root: Record<string, unknown>, nodes: Map<string, SchemaNode>): boolean {
  const stack: Array<{ schema: Record<string, unknown>; path: PathSegment[] }> = [{ schema: root, path: [] }];
  while (stack.length > 0) {
    const { schema, path } = stack.pop() as { schema: Record<string, unknown>; path: PathSegment[] };
    if (RESOLUTION_SCOPES.some((k) => k in schema) || (path.length > 0 && '$id' in schema)) return false;
    const node: SchemaNode = { schema, path, sameValue: [], all: [] };
    nodes.set(pointerOf(path), node);
    for (const [keyword, value] of Object.entries(schema))
      for (const [sub, at] of subschemasOf(keyword, value, [...path, keyword])) {
        if (!isObject(sub)) continue;
        const pointer = pointerOf(at);
        // A definition is reached only through a `$ref`.
        if (!DEFINITIONS.has(keyword)) node.all.push(pointer);
        if (SAME_VALUE.has(keyword)) node.sameValue.push(pointer);
        stack.push({ schema: sub, path: at });
      }
  }
  for (const node of nodes.values()) {
    const ref = node.schema.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#')) continue;
    const target = pointerOf(pointerSegments(decodeFragment(ref), root));
    node.sameValue.push(target);
    node.all.push(target);
  }
  return true;
}

/** The pointers the root reaches through any subschema or `$ref` (a definition, only through a `$ref`). */
function reachable(nodes: Map<string, SchemaNode>): Set<string> {
  const seen = new Set<string>(['#']);
  const stack = ['#'];
  while (stack.length > 0) {
    for (const next of nodes.get(stack.pop() as string)?.all ?? []) {
      if (seen.has(next) || !nodes.has(next)) continue;
      seen.add(next);
      stack.push(next);
    }
  }
  return seen;
}

/** One cycle of same-value edges among the reached nodes, as its pointers in order; iterative DFS. */
function findCycle(nodes: Map<string, SchemaNode>, reached: Set<string>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  for (const start of reached) {
    if (state.has(start)) continue;
    const path: string[] = [];
    const stack: Array<{ pointer: string; next: number }> = [{ pointer: start, next: 0 }];
    state.set(start, 'open');
    path.push(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const edges = nodes.get(top.pointer)?.sameValue ?? [];
      if (top.next >= edges.length) {
        state.set(top.pointer, 'done');
        stack.pop();
        path.pop();
        continue;
      }
      const next = edges[top.next++];
      if (!nodes.has(next)) continue;
      const seen = state.get(next);
      if (seen === 'open') return path.slice(path.indexOf(next));
      if (seen === 'done') continue;
      state.set(next, 'open');
      path.push(next);
      stack.push({ pointer: next, next: 0 });
    }
  }
  return undefined;
}

/** A `$ref` is a URI fragment: percent-encoded characters stand for themselves. */
function decodeFragment(ref: string): string {
  try {
    return decodeURIComponent(ref);
  } catch {
    return ref;
  }
}
