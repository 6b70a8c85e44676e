import { z } from 'zod';
import { isPlainObject } from '../shared/plain-object';

/** The key of a stored secret's reference: `{ "$secret": "s1" }` stands where the value was. */
export const SECRET_REF_KEY = '$secret';

/** The key a caller marks a value secret with: `{ "$sensitive": <any JSON value> }`. */
export const SENSITIVE_MARK_KEY = '$sensitive';

/**
 * Keys whose values are secrets unless configured otherwise (`FLEX_SECRET_KEY_PATTERN`), matched
 * case-insensitively anywhere in a key (spec 003 §10.1 names `token`, `secret`, `apiKey`).
 */
export const DEFAULT_SECRET_KEY_PATTERN =
  'password|passwd|passphrase|secret|token|api[_-]?key|private[_-]?key|credential|authorization';

/** Most secrets one envelope may carry. */
export const MAX_SECRETS_PER_RUN = 100;

/** A secret's id within its run: `s1`, `s2`, … in the order the envelope holds them. */
export const SecretIdSchema = z
  .string()
  .regex(/^s[1-9][0-9]{0,3}$/, { error: 'expected a secret id (s1, s2, …)' });

/**
 * What the event log holds in place of a secret value: the value itself sits in the secret store,
 * encrypted, keyed by run and id, and only an invocation of an agent whose input facet is
 * `sensitive` ever carries it.
 */
export const SecretRefSchema = z.strictObject({ [SECRET_REF_KEY]: SecretIdSchema });

/** See {@link SecretRefSchema}. */
export type SecretRef = { readonly $secret: string };

/** True for exactly `{ "$secret": "<id>" }`. */
export function isSecretRef(value: unknown): value is SecretRef {
  return SecretRefSchema.safeParse(value).success;
}

/** The ids of every reference inside `value`, in document order, each once. */
export function secretRefIds(value: unknown): string[] {
  const ids = new Set<string>();
  const walk = (v: unknown): void => {
    if (isSecretRef(v)) ids.add(v.$secret);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (isPlainObject(v)) Object.values(v).forEach(walk);
  };
  walk(value);
  return [...ids];
}

/**
 * A copy of `value` with every reference replaced by its value from `reveal`; a reference it does
 * not know is left as it is (the caller decides whether that is an error).
 */
export function replaceSecretRefs(value: unknown, reveal: ReadonlyMap<string, unknown>): unknown {
  if (isSecretRef(value)) return reveal.has(value.$secret) ? reveal.get(value.$secret) : value;
  if (Array.isArray(value)) return value.map((v) => replaceSecretRefs(v, reveal));
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceSecretRefs(v, reveal)]));
  return value;
}
