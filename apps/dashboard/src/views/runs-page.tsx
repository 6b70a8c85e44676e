import { useCallback, useEffect, useState } from 'preact/hooks';
import type { FlexApi } from '../api/client';
import { RUN_STATUSES, type RunsPage as Page } from '../api/types';
import { percent, statusLabel, when } from '../format';
import { routeHref } from '../router';
import { ErrorNote, StatusBadge } from './common';

const PAGE_SIZE = 25;
const PAGE_SIZES = [10, 25, 50, 100];
const REFRESH_MS = 5_000;

/** Runs, newest first, filtered by status, a page at a time; the first page refreshes itself. */
export function RunsPage({ api, status, per }: { api: FlexApi; status?: string; per?: number }) {
  const pageSize = per ?? PAGE_SIZE;
  // The cursors of the pages before this one, so "Newer" can go back.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<Page>();
  const [error, setError] = useState<unknown>();
  const cursor = cursors.at(-1);
  const load = useCallback(async () => {
    try {
      setPage(await api.listRuns({ status, pageSize, cursor }));
      setError(undefined);
    } catch (e) {
      setError(e);
    }
  }, [api, status, pageSize, cursor]);
  useEffect(() => setCursors([undefined]), [status, pageSize]);
  useEffect(() => {
    void load();
    if (cursor !== undefined) return;
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [load, cursor]);
  return (
    <div class="page">
      <div class="page-title">
        <h1>Runs</h1>
        <a class="button" href="#/new">
          New run
        </a>
      </div>
      <div class="toolbar">
        <StatusFilter current={status} per={per} />
        <label class="inline small">
          Per page{' '}
          <select
            value={pageSize}
            onChange={(e) =>
              (location.hash = routeHref({ page: 'runs', status, per: Number(e.currentTarget.value) }))
            }
          >
            {[...new Set([pageSize, ...PAGE_SIZES])]
              .sort((a, b) => a - b)
              .map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
          </select>
        </label>
      </div>
      <ErrorNote error={error} />
      {page && <RunsTable page={page} />}
      <div class="pager">
        <button type="button" disabled={cursors.length < 2} onClick={() => setCursors(cursors.slice(0, -1))}>
          ← Newer
        </button>
        <span aria-live="polite">Page {cursors.length}</span>
        <button
          type="button"
          disabled={!page?.next}
          onClick={() => page?.next && setCursors([...cursors, page.next])}
        >
          Older →
        </button>
      </div>
    </div>
  );
}

function StatusFilter({ current, per }: { current?: string; per?: number }) {
  const options: Array<string | undefined> = [undefined, ...RUN_STATUSES];
  return (
    <nav class="filters" aria-label="Filter runs by status">
      {options.map((s) => (
        <a
          key={s ?? 'all'}
          class="chip"
          href={routeHref({ page: 'runs', status: s, per })}
          aria-current={s === current ? 'page' : undefined}
        >
          {s ? statusLabel(s) : 'all'}
        </a>
      ))}
    </nav>
  );
}

function RunsTable({ page }: { page: Page }) {
  if (!page.runs.length) return <p class="muted">No runs here yet.</p>;
  return (
    <table class="runs">
      <caption class="sr-only">Runs, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Status</th>
          <th scope="col">Objective</th>
          <th scope="col">Plan</th>
          <th scope="col">Score</th>
          <th scope="col">Started</th>
          <th scope="col">Last event</th>
        </tr>
      </thead>
      <tbody>
        {page.runs.map((run) => (
          <tr key={run.runId}>
            <td>
              <StatusBadge status={run.status} />
            </td>
            <td>
              <a href={routeHref({ page: 'run', runId: run.runId })}>{run.objective || run.runId}</a>
              <div class="muted mono small">{run.runId}</div>
            </td>
            <td>v{run.planVersion}</td>
            <td>{percent(run.satisfactionScore)}</td>
            <td>{when(run.createdAt)}</td>
            <td class="mono small">{run.lastEventType ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
