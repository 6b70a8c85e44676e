import { formatIssuePath } from '@flex/contracts';

export type PathSegment = string | number;

/**
 * `outputContract.schema` + [`properties`, `a b`, `items`, 0] → `outputContract.schema.properties["a b"].items[0]`:
 * the dotted form every Flex `ValidationIssue` uses.
 */
export function formatPath(base: string, segments: readonly PathSegment[]): string {
  return joinPath(base, formatIssuePath(segments));
}

/** Appends an already formatted relative path to `base`. */
export function joinPath(base: string, tail: string): string {
  if (tail === '' || base === '') return base + tail;
  return tail.startsWith('[') ? base + tail : `${base}.${tail}`;
}

/** Turns a JSON pointer into segments, reading array indexes as numbers where `root` has arrays. */
export function pointerSegments(pointer: string, root: unknown): PathSegment[] {
  const raw = pointer.replace(/^#/, '');
  if (raw === '') return [];
  const segments: PathSegment[] = [];
  let node = root;
  for (const part of raw.slice(1).split('/')) {
    const key = safeDecode(part).replace(/~1/g, '/').replace(/~0/g, '~');
    const index = Array.isArray(node) && /^\d+$/.test(key) ? Number(key) : null;
    segments.push(index ?? key);
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  }
  return segments;
}

/** [`$defs`, `a/b`] → `#/$defs/a~1b`: the URI-fragment JSON pointer of a path (`#` for the root). */
export function pointerOf(path: readonly PathSegment[]): string {
  return path.length === 0 ? '#' : `#/${path.map((s) => escapePointerToken(String(s))).join('/')}`;
}

/** RFC 6901 escaping of one reference token. */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
