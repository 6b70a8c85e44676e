import type { RunStatus, RunSummary } from '@flex/contracts';
import type { EventStoreDatabase } from '@flex/event-store';
import type { Kysely } from 'kysely';
import { readModels, toSummary } from './query-rows';

/** A place in the order of `listRuns` (newest first, then run id descending): the last run seen. */
export interface RunCursor {
  createdAt: string;
  runId: string;
}

/** Which runs `listRuns` returns: every filter given holds. */
export interface RunFilter {
  /** One principal's runs (a client sees only its own). */
  owner?: string;
  /** Any of these statuses. */
  statuses?: readonly RunStatus[];
  /** Runs whose current plan has a node on this capability. */
  capabilityId?: string;
  /** Created at or after (ISO). */
  since?: string;
  /** Created before (ISO). */
  until?: string;
}

export interface RunPage {
  runs: RunSummary[];
  /** Where the next page starts; undefined on the last page. */
  next?: RunCursor;
}

/**
 * One page of runs, newest first (creation time, then run id, both descending: a total order, so
 * paging with `after` visits every run exactly once whatever the page size, and a run started
 * meanwhile lands before the first page instead of shifting the others).
 */
export async function listRuns(
  db: Kysely<EventStoreDatabase>,
  options: RunFilter & { limit: number; after?: RunCursor },
): Promise<RunPage> {
  const { owner, statuses, capabilityId, since, until, after, limit } = options;
  let query = readModels(db).selectFrom('runs').selectAll('runs');
  if (owner !== undefined) query = query.where('owner', '=', owner);
  if (statuses?.length) query = query.where('status', 'in', [...statuses]);
  if (since !== undefined) query = query.where('created_at', '>=', new Date(since));
  if (until !== undefined) query = query.where('created_at', '<', new Date(until));
  if (capabilityId !== undefined)
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('plan_nodes')
          .select('plan_nodes.node_id')
          .whereRef('plan_nodes.run_id', '=', 'runs.run_id')
          .where('plan_nodes.capability_id', '=', capabilityId),
      ),
    );
  if (after)
    query = query.where(({ eb, refTuple, tuple }) =>
      eb(refTuple('created_at', 'run_id'), '<', tuple(new Date(after.createdAt), after.runId)),
    );
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('run_id', 'desc')
    .limit(limit + 1)
    .execute();
  const runs = rows.slice(0, limit).map(toSummary);
  const last = runs[runs.length - 1];
  return rows.length > limit && last
    ? { runs, next: { createdAt: last.createdAt, runId: last.runId } }
    : { runs };
}
