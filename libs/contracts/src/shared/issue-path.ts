const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Formats a path as the dotted form used in every `ValidationIssue`:
 * `['policies', 'runtime', 0, 'action', 'type']` → `policies.runtime[0].action.type`.
 * Keys that are not identifiers are quoted (`condition.and[1]["<"]`); the root is `''`.
 */
export function formatIssuePath(segments: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && IDENTIFIER.test(segment))
      out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}
