import { TaskEnvelopeSchema, type TaskEnvelope } from '../envelope/task-envelope';
import { DEFAULT_SECRET_KEY_PATTERN } from '../secrets/secret-ref';
import { extractSecrets, type ExtractedSecret } from '../secrets/extract-secrets';
import { isPlainObject } from '../shared/plain-object';
import { migrateLegacyPolicies } from './legacy-policies';
import { migrateRuntimePolicy, rewriteRule } from './legacy-runtime';
import { NormalizeContext } from './normalize-context';
import { guardRawEnvelope } from './raw-envelope-guard';
import type { NormalizationChange, ValidationIssue } from './validation-issue';
import { zodIssuesToValidationIssues } from './zod-issues';

/** The outcome of {@link normalizeEnvelope}. */
export type NormalizeEnvelopeResult =
  | { ok: true; envelope: TaskEnvelope; changes: NormalizationChange[]; secrets: ExtractedSecret[] }
  | { ok: false; errors: ValidationIssue[] };

export interface NormalizeEnvelopeOptions {
  /** Keys whose values are secrets (default {@link DEFAULT_SECRET_KEY_PATTERN}, case-insensitive). */
  secretKeyPattern?: RegExp;
}

const DEFAULT_KEY_PATTERN = new RegExp(DEFAULT_SECRET_KEY_PATTERN, 'i');

/**
 * The PolicyNormalizer (DESIGN §6): turns a caller's envelope into the canonical
 * {@link TaskEnvelope}, or says exactly what is wrong. Legacy shapes from the spec's samples are
 * rewritten and each rewrite is reported in `changes`; removed verbs (`goto`, `hitl_pause`,
 * `fail_run`) and fields (`selector.relation`) are refused with a migration hint; anything else
 * unknown is refused naming its path. Secrets (values marked `{"$sensitive": value}`, or under a
 * key matching `secretKeyPattern`) are taken out first, before any pass or message can see them:
 * the envelope holds `{"$secret": "s<n>"}` in their place, `secrets` holds the values for the
 * secret store, and `changes` names each path. Never throws and never modifies `raw`.
 */
export function normalizeEnvelope(
  raw: unknown,
  options: NormalizeEnvelopeOptions = {},
): NormalizeEnvelopeResult {
  try {
    return normalize(raw, statelessPattern(options.secretKeyPattern ?? DEFAULT_KEY_PATTERN));
  } catch (error) {
    // A bug here must still come back as a refusal, never as a thrown request.
    return {
      ok: false,
      errors: [
        {
          path: '',
          code: 'internal_error',
          message: `normalizer failed: ${(error as Error)?.message ?? String(error)}`,
        },
      ],
    };
  }
}

function normalize(raw: unknown, secretKeyPattern: RegExp): NormalizeEnvelopeResult {
  const ctx = new NormalizeContext();
  const envelope = guardRawEnvelope(raw, ctx);
  if (!envelope) return { ok: false, errors: ctx.issues };
  const secrets = extractSecrets(envelope, secretKeyPattern, ctx);
  migrateOutputContract(envelope.outputContract, ctx);
  if (isPlainObject(envelope.policies)) {
    migrateLegacyPolicies(envelope.policies, ctx);
    const runtime = envelope.policies.runtime;
    if (Array.isArray(runtime))
      runtime.forEach((policy, i) => migrateRuntimePolicy(policy, ['policies', 'runtime', i], ctx));
  }
  const parsed = TaskEnvelopeSchema.safeParse(envelope, { reportInput: true });
  const schemaIssues = parsed.success
    ? []
    : zodIssuesToValidationIssues(parsed.error.issues).filter((i) => !ctx.covers(i.path));
  const errors = dedupe([...ctx.issues, ...schemaIssues].map((issue) => ctx.asSent(issue)));
  if (errors.length > 0 || !parsed.success) return { ok: false, errors };
  return { ok: true, envelope: parsed.data, changes: ctx.changes, secrets };
}

/** `test` on a global or sticky RegExp moves `lastIndex`: the same key would match only every other time. */
function statelessPattern(pattern: RegExp): RegExp {
  return pattern.global || pattern.sticky
    ? new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''))
    : pattern;
}

function migrateOutputContract(contract: unknown, ctx: NormalizeContext): void {
  if (!isPlainObject(contract)) return;
  if ('mode' in contract) {
    const mode = contract.mode;
    if (mode === 'json_schema') {
      delete contract.mode;
      ctx.change(['outputContract', 'mode'], 'dropped: every output contract is a JSON Schema', {
        from: mode,
      });
    } else {
      ctx.reject(
        ['outputContract', 'mode'],
        'unsupported_output_mode',
        `output mode ${JSON.stringify(mode)} is not supported`,
        'output contracts are JSON Schemas; remove `mode`',
      );
    }
  }
  if (!Array.isArray(contract.constraints)) return;
  contract.constraints.forEach((constraint, i) => {
    if (isPlainObject(constraint) && 'expr' in constraint) {
      constraint.expr = rewriteRule(constraint.expr, ['outputContract', 'constraints', i, 'expr'], ctx);
    }
  });
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.code}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
