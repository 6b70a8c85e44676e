import {
  IsoTimestampSchema,
  RUNS_PAGE_DEFAULT,
  RunListQuerySchema,
  type RunListQuery,
} from '@flex/contracts';
import type { RunCursor, RunFilter } from '@flex/read-models';
import { z } from 'zod';
import { apiError } from '../http/api-error';
import { parseQuery } from '../http/query-schema';

/** What `GET runs` asks the read model for, parsed from its query. */
export interface RunListRequest {
  filter: Omit<RunFilter, 'owner'>;
  limit: number;
  after?: RunCursor;
}

/**
 * `GET runs`' query, checked against the contract: an unknown parameter, a status that is not one,
 * a bad limit, timestamp or cursor is a 400 `invalid_query` whose message and `details.path` name
 * the parameter.
 */
export function parseRunListQuery(query: Record<string, unknown>): RunListRequest {
  const q: RunListQuery = parseQuery(RunListQuerySchema, query);
  return {
    filter: { statuses: q.status, capabilityId: q.capability, since: q.since, until: q.until },
    limit: q.limit ?? RUNS_PAGE_DEFAULT,
    after: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
  };
}

const CursorSchema = z.strictObject({
  v: z.literal(1),
  t: IsoTimestampSchema,
  id: z.string().min(1).max(200),
});

/** The `next` of a page: opaque to clients (base64url JSON), a place in the order to the server. */
export function encodeCursor(cursor: RunCursor): string {
  return Buffer.from(JSON.stringify({ v: 1, t: cursor.createdAt, id: cursor.runId })).toString('base64url');
}

function decodeCursor(text: string): RunCursor {
  let value: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('not base64url');
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const parsed = CursorSchema.safeParse(value);
  if (!parsed.success)
    throw apiError(400, 'invalid_query', 'cursor: not a cursor this server gave (use the `next` of a page)', {
      path: 'cursor',
    });
  return { createdAt: parsed.data.t, runId: parsed.data.id };
}
