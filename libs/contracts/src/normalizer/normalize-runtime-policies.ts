import { z } from 'zod';
import { TaskPoliciesSchema } from '../envelope/task-policies';
import type { RuntimePolicy } from '../envelope/runtime-policy';
import { isPlainObject } from '../shared/plain-object';
import { migrateRuntimePolicy } from './legacy-runtime';
import { NormalizeContext } from './normalize-context';
import type { ValidationIssue } from './validation-issue';
import { zodIssuesToValidationIssues } from './zod-issues';

/** The outcome of {@link normalizeRuntimePolicies}. */
export type NormalizeRuntimePoliciesResult =
  { ok: true; runtime: RuntimePolicy[] } | { ok: false; errors: ValidationIssue[] };

/** A candidate policy set: an envelope's `policies` block holding only `runtime`. */
const CandidateSchema = z.strictObject({ runtime: TaskPoliciesSchema.shape.runtime.unwrap() });

/**
 * A set of runtime policies on its own (`{ "runtime": [...] }`, as in an envelope's `policies`),
 * brought to the canonical shape exactly as the PolicyNormalizer brings an envelope's (legacy
 * rewrites, removed verbs refused with their hint) and validated by the same schema, ids unique.
 * Errors name the path from the set's root (`runtime[0].action.type`). Never modifies `raw`.
 */
export function normalizeRuntimePolicies(raw: unknown): NormalizeRuntimePoliciesResult {
  if (!isPlainObject(raw))
    return {
      ok: false,
      errors: [{ path: '', code: 'invalid_type', message: 'expected an object { runtime: [...] }' }],
    };
  const copy = structuredClone(raw);
  const ctx = new NormalizeContext();
  if (Array.isArray(copy.runtime))
    copy.runtime.forEach((policy, i) => migrateRuntimePolicy(policy, ['runtime', i], ctx));
  const parsed = CandidateSchema.safeParse(copy, { reportInput: true });
  const schemaIssues = parsed.success
    ? []
    : zodIssuesToValidationIssues(parsed.error.issues).filter((i) => !ctx.covers(i.path));
  const errors = [...ctx.issues, ...schemaIssues].map((issue) => ctx.asSent(issue));
  if (errors.length > 0 || !parsed.success) return { ok: false, errors };
  return { ok: true, runtime: parsed.data.runtime };
}
