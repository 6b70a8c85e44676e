import type { PolicyWhatIfRequest, PolicyWhatIfResponse } from '@flex/contracts';
import { useState } from 'preact/hooks';
import type { FlexApi } from '../api/client';
import { routeHref } from '../router';
import { ErrorNote, Panel } from './common';

type WhatIfRunView = PolicyWhatIfResponse['runs'][number];

const EXAMPLE = JSON.stringify(
  { runtime: [{ id: 'review', trigger: { kind: 'onStart' }, action: { type: 'hitl' } }] },
  null,
  2,
);

/**
 * Policy what-if (operator): paste or upload a candidate set of runtime policies, pick runs (by id,
 * or the newest finished ones since a date) and see, per run, the first decision that would change
 * and, in total, how many of each kind. Nothing is written (docs/AUDIT.md, "Policy what-if").
 */
export function WhatIfPage({ api }: { api: FlexApi }) {
  const [text, setText] = useState(EXAMPLE);
  const [runs, setRuns] = useState('');
  const [since, setSince] = useState('');
  const [limit, setLimit] = useState('20');
  const [merge, setMerge] = useState(false);
  const [report, setReport] = useState<PolicyWhatIfResponse>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setReport(undefined);
    let policies: unknown;
    try {
      policies = JSON.parse(text);
    } catch (e) {
      setError(new Error(`The policies are not JSON: ${(e as Error).message}`));
      return;
    }
    setBusy(true);
    try {
      setReport(
        await api.policyWhatIf({
          ...request(policies, runs, since, limit),
          mode: merge ? 'merge' : 'replace',
        }),
      );
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="page">
      <h1>Policy what-if</h1>
      <p class="muted">
        Recorded runs decided again with these runtime policies in place of their own. Each run is compared up
        to its first divergence; nothing is written.
      </p>
      <form class="what-if" onSubmit={(e) => void submit(e)}>
        <label for="what-if-policies">Candidate policies (JSON)</label>
        <textarea
          id="what-if-policies"
          rows={10}
          spellcheck={false}
          value={text}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        />
        <label for="what-if-file">Or upload a policy file</label>
        <input
          id="what-if-file"
          type="file"
          accept="application/json,.json"
          onChange={(e) => void readFile(e, setText)}
        />
        <label class="inline">
          <input
            type="checkbox"
            checked={merge}
            onChange={(e) => setMerge((e.target as HTMLInputElement).checked)}
          />{' '}
          Keep each run’s other policies (the candidates replace those with their ids)
        </label>
        <label for="what-if-runs">Run ids (comma-separated; empty: the newest finished runs)</label>
        <input
          id="what-if-runs"
          value={runs}
          onInput={(e) => setRuns((e.target as HTMLInputElement).value)}
        />
        <label for="what-if-since">Created since (ISO date, optional)</label>
        <input
          id="what-if-since"
          placeholder="2026-11-01T00:00:00Z"
          value={since}
          onInput={(e) => setSince((e.target as HTMLInputElement).value)}
        />
        <label for="what-if-limit">At most (runs)</label>
        <input
          id="what-if-limit"
          type="number"
          min={1}
          max={100}
          value={limit}
          onInput={(e) => setLimit((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Deciding again…' : 'Show what would change'}
        </button>
      </form>
      <ErrorNote error={error} />
      <IssueList error={error} />
      {report && <WhatIfReportView report={report} />}
    </div>
  );
}

function request(policies: unknown, runs: string, since: string, limit: string): PolicyWhatIfRequest {
  const ids = runs
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  return {
    policies,
    ...(ids.length ? { runs: ids } : { limit: Number(limit) || 20 }),
    ...(since.trim() ? { since: since.trim() } : {}),
  };
}

async function readFile(event: Event, set: (text: string) => void): Promise<void> {
  const file = (event.target as HTMLInputElement).files?.[0];
  if (file) set(await file.text());
}

function IssueList({ error }: { error: unknown }) {
  const issues = (error as { issues?: Array<{ path: string; message: string }> } | undefined)?.issues ?? [];
  if (!issues.length) return null;
  return (
    <ul class="issues" aria-label="What is wrong">
      {issues.map((i) => (
        <li key={i.path}>
          <code>{i.path}</code>: {i.message}
        </li>
      ))}
    </ul>
  );
}

function WhatIfReportView({ report }: { report: PolicyWhatIfResponse }) {
  const t = report.totals;
  const kinds = Object.entries(t.byKind).filter(([, c]) => c.new + c.vanished + c.changed > 0);
  return (
    <>
      <Panel title="Totals" id="what-if-totals">
        <p data-testid="what-if-totals">
          {t.runs} runs: {t.changed} changed, {t.unchanged} unchanged, {t.notComparable} not comparable;
          endings changed {t.outcomesChanged}, unknown {t.outcomesUnknown}
        </p>
        {kinds.length > 0 && (
          <table class="what-if-kinds">
            <caption class="sr-only">Changed decisions by kind</caption>
            <thead>
              <tr>
                <th scope="col">Decision</th>
                <th scope="col">New</th>
                <th scope="col">Vanished</th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {kinds.map(([kind, c]) => (
                <tr key={kind}>
                  <th scope="row">{kind}</th>
                  <td>{c.new}</td>
                  <td>{c.vanished}</td>
                  <td>{c.changed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
      <Panel title="Runs" id="what-if-runs-panel">
        <ul class="what-if-runs">
          {report.runs.map((run) => (
            <WhatIfRunItem key={run.runId} run={run} />
          ))}
        </ul>
      </Panel>
    </>
  );
}

function WhatIfRunItem({ run }: { run: WhatIfRunView }) {
  const d = run.divergence;
  return (
    <li data-run-id={run.runId}>
      <a href={routeHref({ page: 'run', runId: run.runId })} class="mono">
        {run.runId}
      </a>{' '}
      <strong class={`verdict verdict-${run.verdict}`}>{run.verdict.replace('_', ' ')}</strong>
      {d && (
        <span>
          {' '}
          at position {d.position ?? '(after the record)'} (version {d.version}, {d.type}), decided by{' '}
          {d.component}
        </span>
      )}
      <span class="muted">
        {' '}
        · ending {run.outcome.recorded} → {run.outcome.whatIf}
      </span>
      {run.changes.length > 0 && (
        <ul class="what-if-changes">
          {run.changes.map((c, i) => (
            <li key={i}>
              {c.change} {c.kind}: {c.detail}
              {c.policyId && (
                <>
                  {' '}
                  (policy <code>{c.policyId}</code>)
                </>
              )}
              {c.nodeId && (
                <>
                  {' '}
                  at node <code>{c.nodeId}</code>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
