import { z } from 'zod';

/**
 * One reason a request was refused, aimed at the caller: `path` is the dotted location
 * (`policies.runtime[0].action.type`, `''` for the whole value), `code` is stable and
 * machine-readable, `hint` says how to fix it when there is a known migration.
 */
export const ValidationIssueSchema = z.strictObject({
  path: z.string(),
  code: z.string().min(1),
  message: z.string().min(1),
  hint: z.string().optional(),
});

/** See {@link ValidationIssueSchema}. */
export type ValidationIssue = z.infer<typeof ValidationIssueSchema>;

/**
 * One rewrite the PolicyNormalizer applied to reach the canonical shape: `path` is where the
 * legacy value sat, `from` what it was, `to` where its meaning now lives (absent when dropped).
 */
export const NormalizationChangeSchema = z.strictObject({
  path: z.string(),
  from: z.unknown().optional(),
  to: z.string().optional(),
  note: z.string().min(1),
});

/** See {@link NormalizationChangeSchema}. */
export type NormalizationChange = z.infer<typeof NormalizationChangeSchema>;
