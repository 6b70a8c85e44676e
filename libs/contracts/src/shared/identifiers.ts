import { z } from 'zod';
import { LIMITS } from './limits';

/**
 * An identifier safe in URLs, stream ids, logs and NATS subjects once dots are mapped:
 * 1..128 characters of `[A-Za-z0-9_.:-]`. Used for run, node, policy, request and capability ids.
 */
export const IdentifierSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,128}$/, { error: 'expected 1..128 characters of A-Z a-z 0-9 _ . : -' });

/** A lowercase hex SHA-256 digest, as `contentHash` returns. */
export const Sha256HexSchema = z
  .string()
  .regex(/^[0-9a-f]{64}$/, { error: 'expected a lowercase hex SHA-256 digest' });

/** An ISO-8601 timestamp with a `Z` or numeric offset: how time crosses a boundary. */
export const IsoTimestampSchema = z.iso.datetime({ offset: true });

/** A non-empty short text (names, labels, reasons). */
export const ShortTextSchema = z.string().min(1).max(LIMITS.shortTextMaxLength);

/** A non-empty long text (instructions, rationales, summaries). */
export const LongTextSchema = z.string().min(1).max(LIMITS.longTextMaxLength);

/** An attempt counter: 1 on the first try. */
export const AttemptSchema = z.int().min(1);

/** A plan version: 1 for the first accepted plan, +1 per replan. */
export const PlanVersionSchema = z.int().min(1);

/** A score in [0, 1]. */
export const UnitScoreSchema = z.number().min(0).max(1);

/** Adds an issue for each value that appears more than once in a list. */
export function checkUnique(values: readonly string[], ctx: z.RefinementCtx, what: string): void {
  const seen = new Set<string>();
  values.forEach((value, index) => {
    if (seen.has(value))
      ctx.addIssue({
        code: 'custom',
        path: [index],
        message: `duplicate ${what} "${value}"`,
        params: { code: 'duplicate' },
      });
    seen.add(value);
  });
}
