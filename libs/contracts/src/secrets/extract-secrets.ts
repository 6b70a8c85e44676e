import { formatIssuePath } from '../shared/issue-path';
import { isPlainObject } from '../shared/plain-object';
import type { NormalizeContext } from '../normalizer/normalize-context';
import { MAX_SECRETS_PER_RUN, SECRET_REF_KEY, SENSITIVE_MARK_KEY, type SecretRef } from './secret-ref';

/** A secret taken out of an envelope: its id in the run, where it was, and its value. */
export interface ExtractedSecret {
  readonly id: string;
  /** Dotted path in the envelope (`inputs.credentials`), as in a ValidationIssue. */
  readonly path: string;
  readonly value: unknown;
}

// The envelope's free-form data: the only places a secret may sit. Everything else has a schema.
const DATA_AREAS: ReadonlyArray<readonly string[]> = [
  ['inputs'],
  ['constraints'],
  ['metadata'],
  ['policies', 'planner', 'directives'],
];

type Node = Record<string, unknown> | unknown[];

/**
 * The choke point (DESIGN §8), pure: every value in the envelope's data that is marked
 * `{ "$sensitive": value }` or sits under a key matching `keyPattern` is taken out and replaced, in
 * place, by `{ "$secret": "s<n>" }` (ids in document order, so the same envelope gives the same ids).
 * Each replacement is reported in `ctx.changes` by path only. A marking or a `$secret` key outside
 * the data, a malformed marking, or more than {@link MAX_SECRETS_PER_RUN} secrets is refused.
 */
export function extractSecrets(
  envelope: Record<string, unknown>,
  keyPattern: RegExp,
  ctx: NormalizeContext,
): ExtractedSecret[] {
  const secrets: ExtractedSecret[] = [];
  const take = (parent: Node, key: string | number, path: PropertyKey[], value: unknown, why: string) => {
    if (secrets.length >= MAX_SECRETS_PER_RUN) {
      ctx.reject(path, 'too_many_secrets', `an envelope may carry at most ${MAX_SECRETS_PER_RUN} secrets`);
      return;
    }
    const ref: SecretRef = { $secret: `s${secrets.length + 1}` };
    secrets.push({ id: ref.$secret, path: formatIssuePath(path), value: unwrapMarkings(value) });
    setChild(parent, key, ref);
    ctx.change(path, `secret (${why}): kept in the secret store, replaced by {"$secret":"${ref.$secret}"}`);
  };
  const walk = (node: Node, path: PropertyKey[], inData: boolean): void => {
    for (const [key, value] of childrenOf(node)) {
      const at = [...path, key];
      const data = inData || DATA_AREAS.some((area) => samePath(area, at));
      if (key === SECRET_REF_KEY || key === SENSITIVE_MARK_KEY) refuseReserved(key, at, ctx);
      else if (isMarking(value)) {
        if (data) take(node, key, at, value[SENSITIVE_MARK_KEY], `marked ${SENSITIVE_MARK_KEY}`);
        else ctx.reject(at, 'secret_outside_data', OUTSIDE_DATA);
      } else if (inData && typeof key === 'string' && keyPattern.test(key)) {
        take(node, key, at, value, 'its key matches the secret key pattern');
      } else if (Array.isArray(value) || isPlainObject(value)) {
        walk(value, at, data);
      }
    }
  };
  walk(envelope, [], false);
  return secrets;
}

const OUTSIDE_DATA =
  'a secret may only be marked in inputs, constraints, metadata or policies.planner.directives';

/** `{ "$sensitive": … }` and nothing else: the one shape of a marking. */
function isMarking(value: unknown): value is { [SENSITIVE_MARK_KEY]: unknown } {
  return isPlainObject(value) && Object.keys(value).length === 1 && Object.hasOwn(value, SENSITIVE_MARK_KEY);
}

/** `$secret` marks a stored reference (not for a caller to forge); a stray `$sensitive`, a bad marking. */
function refuseReserved(key: string, at: PropertyKey[], ctx: NormalizeContext): void {
  if (key === SECRET_REF_KEY)
    ctx.reject(
      at,
      'reserved_key',
      `"${SECRET_REF_KEY}" is reserved for the references of stored secrets`,
      `mark a secret value as {"${SENSITIVE_MARK_KEY}": value}`,
    );
  else
    ctx.reject(
      at,
      'invalid_secret_marking',
      `a secret marking is an object with the single key "${SENSITIVE_MARK_KEY}"`,
    );
}

/** A secret's value with any markings inside it unwrapped: an agent gets the value, not our syntax. */
function unwrapMarkings(value: unknown): unknown {
  if (isMarking(value)) return unwrapMarkings(value[SENSITIVE_MARK_KEY]);
  if (Array.isArray(value)) return value.map(unwrapMarkings);
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unwrapMarkings(v)]));
  return value;
}

function childrenOf(node: Node): Array<[string | number, unknown]> {
  return Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
}

function setChild(node: Node, key: string | number, value: unknown): void {
  if (Array.isArray(node)) node[Number(key)] = value;
  else node[String(key)] = value;
}

function samePath(area: readonly string[], path: readonly PropertyKey[]): boolean {
  return area.length === path.length && area.every((segment, i) => segment === path[i]);
}
