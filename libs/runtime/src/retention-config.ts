import type { S3ArchiveOptions } from '@flex/event-store';
import { z } from 'zod';

const DAY_MS = 86_400_000;

/**
 * Retention (docs/AUDIT.md § Retention), spread into the runtime's config schema (the only reader of
 * process.env). Off unless FLEX_RETENTION_DAYS (or, finer, FLEX_RETENTION_AGE_MS) is set: finished
 * runs whose last event is older than that are archived, every FLEX_RETENTION_INTERVAL_MS, at most
 * FLEX_RETENTION_BATCH runs a cycle, to FLEX_ARCHIVE_DIR or an S3-compatible bucket.
 */
export const RETENTION_ENV = {
  FLEX_RETENTION_DAYS: z.coerce.number().positive({ error: 'expected a positive number of days' }).optional(),
  /** The same age in milliseconds (tests, and sub-day ages); give one of the two. */
  FLEX_RETENTION_AGE_MS: z.coerce.number().int().min(0, { error: 'expected milliseconds (≥ 0)' }).optional(),
  FLEX_RETENTION_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100, { error: 'expected at least 100 ms' })
    .default(3_600_000),
  FLEX_RETENTION_BATCH: z.coerce.number().int().min(1).max(10_000).default(100),
  /** Where archives are written (embedded mode: `<FLEX_DATA_DIR>/archive` when unset). */
  FLEX_ARCHIVE_DIR: z.string().min(1).optional(),
  /** An S3-compatible bucket instead of a directory: path-style URLs, signed with AWS Signature V4. */
  FLEX_ARCHIVE_S3_ENDPOINT: z
    .url({ error: 'expected the S3 endpoint URL (https://s3.eu-west-1.amazonaws.com)' })
    .optional(),
  FLEX_ARCHIVE_S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { error: 'expected an S3 bucket name' })
    .optional(),
  FLEX_ARCHIVE_S3_REGION: z.string().min(1).default('us-east-1'),
  FLEX_ARCHIVE_S3_PREFIX: z.string().default(''),
  FLEX_ARCHIVE_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  FLEX_ARCHIVE_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
};

type RetentionEnv = Partial<{ [K in keyof typeof RETENTION_ENV]: z.output<(typeof RETENTION_ENV)[K]> }>;

/** Settings that could never work fail at start, naming the variable. */
export function checkRetention(c: RetentionEnv, ctx: z.RefinementCtx): void {
  const fail = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (c.FLEX_RETENTION_DAYS !== undefined && c.FLEX_RETENTION_AGE_MS !== undefined)
    fail('FLEX_RETENTION_AGE_MS', 'give one of FLEX_RETENTION_DAYS, FLEX_RETENTION_AGE_MS');
  const s3 = ['FLEX_ARCHIVE_S3_ENDPOINT', 'FLEX_ARCHIVE_S3_BUCKET'] as const;
  const given = s3.filter((k) => c[k] !== undefined);
  if (given.length === 0) return;
  if (c.FLEX_ARCHIVE_DIR !== undefined)
    fail('FLEX_ARCHIVE_DIR', 'give FLEX_ARCHIVE_DIR or FLEX_ARCHIVE_S3_*, not both');
  for (const k of [...s3, 'FLEX_ARCHIVE_S3_ACCESS_KEY_ID', 'FLEX_ARCHIVE_S3_SECRET_ACCESS_KEY'] as const)
    if (c[k] === undefined) fail(k, `${k} is needed with ${given.join(', ')}`);
}

/** Where archives go, whether or not retention runs (archived runs are read from there). */
export type ArchiveTarget = { kind: 'directory'; dir: string } | ({ kind: 's3' } & S3ArchiveOptions);

export interface RetentionSettings {
  /** Runs whose last event is older than this are archived. */
  ageMs: number;
  intervalMs: number;
  batch: number;
}

/** The retention policy, or undefined when it is off. */
export function retentionSettings(c: RetentionEnv): RetentionSettings | undefined {
  const ageMs =
    c.FLEX_RETENTION_AGE_MS ??
    (c.FLEX_RETENTION_DAYS === undefined ? undefined : c.FLEX_RETENTION_DAYS * DAY_MS);
  if (ageMs === undefined) return undefined;
  return {
    ageMs,
    intervalMs: c.FLEX_RETENTION_INTERVAL_MS ?? 3_600_000,
    batch: c.FLEX_RETENTION_BATCH ?? 100,
  };
}

/**
 * The archive store configured: S3 when its variables are set, else FLEX_ARCHIVE_DIR, else (embedded
 * mode) `<dataDir>/archive`; undefined for a distributed service without either.
 */
export function archiveTarget(
  c: RetentionEnv & { FLEX_DATA_DIR?: string },
  mode: 'embedded' | 'distributed',
): ArchiveTarget | undefined {
  if (c.FLEX_ARCHIVE_S3_ENDPOINT && c.FLEX_ARCHIVE_S3_BUCKET)
    return {
      kind: 's3',
      ...{ endpoint: c.FLEX_ARCHIVE_S3_ENDPOINT, bucket: c.FLEX_ARCHIVE_S3_BUCKET },
      ...{ region: c.FLEX_ARCHIVE_S3_REGION ?? 'us-east-1', prefix: c.FLEX_ARCHIVE_S3_PREFIX ?? '' },
      accessKeyId: c.FLEX_ARCHIVE_S3_ACCESS_KEY_ID ?? '',
      secretAccessKey: c.FLEX_ARCHIVE_S3_SECRET_ACCESS_KEY ?? '',
    };
  if (c.FLEX_ARCHIVE_DIR) return { kind: 'directory', dir: c.FLEX_ARCHIVE_DIR };
  if (mode === 'embedded') return { kind: 'directory', dir: `${c.FLEX_DATA_DIR ?? '.flex'}/archive` };
  return undefined;
}
