import type { RunListResponse, RunSummary } from '@flex/contracts';
import { api, type CliContext } from './client';

export interface RunsOptions {
  status?: string;
  capability?: string;
  since?: string;
  until?: string;
  limit?: string;
  cursor?: string;
  all: boolean;
  json: boolean;
}

/**
 * `flex runs`: a page of runs, newest first, with the API's filters (a bad one is the API's 400,
 * exit 2); `--all` follows `next` to the last page. `--json`: one document `{ runs, next }`.
 */
export async function runsCommand(ctx: CliContext, options: RunsOptions): Promise<number> {
  const { all, json, ...filters } = options;
  const runs: RunSummary[] = [];
  let cursor = filters.cursor;
  let next: string | null;
  do {
    const page = await runsPage(ctx, { ...filters, cursor });
    runs.push(...page.runs);
    next = page.next;
    cursor = next ?? undefined;
  } while (all && next);
  if (json) {
    ctx.out(JSON.stringify({ runs, next }));
    return 0;
  }
  if (runs.length === 0) ctx.out('no runs');
  for (const r of runs) ctx.out(runLine(r));
  if (next) ctx.err(`more: flex runs --cursor ${next}`);
  return 0;
}

/** One page of `GET runs` with the given filters. */
export async function runsPage(
  ctx: CliContext,
  filters: Omit<RunsOptions, 'all' | 'json'>,
): Promise<RunListResponse> {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value !== undefined) query.set(key, value);
  const qs = query.size ? `?${query}` : '';
  return (await (await api(ctx, 'GET', `runs${qs}`)).json()) as RunListResponse;
}

const runLine = (r: RunSummary) =>
  `${r.runId}  ${r.status.padEnd(13)} v${r.planVersion}  ${r.createdAt}  ${truncate(r.objective, 60)}`;

const truncate = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
