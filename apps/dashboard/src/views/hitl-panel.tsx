import { useState } from 'preact/hooks';
import { ApiError } from '../api/api-error';
import type { FlexApi } from '../api/client';
import type { HitlRow } from '../api/types';
import { when } from '../format';
import type { HitlView } from '../run/run-view';
import { ErrorNote, JsonView, Panel } from './common';

export interface HitlPanelProps {
  api: FlexApi;
  runId: string;
  requests: HitlView[];
  rows: HitlRow[];
  onResolved: () => void;
}

/** The run's HITL requests: the pending ones with approve/reject (a note, a payload), then the rest. */
export function HitlPanel(props: HitlPanelProps) {
  if (!props.requests.length) return null;
  const rowOf = (id: string) => props.rows.find((r) => r.requestId === id);
  const pending = props.requests.filter((r) => (rowOf(r.requestId)?.status ?? r.status) === 'pending');
  const done = props.requests.filter((r) => !pending.includes(r));
  return (
    <Panel title={pending.length ? `Waiting for a human (${pending.length})` : 'HITL requests'} id="hitl">
      {pending.map((r) => (
        <HitlForm key={r.requestId} {...props} request={r} />
      ))}
      {done.length > 0 && (
        <ul class="plain">
          {done.map((r) => (
            <li key={r.requestId}>
              <strong>{r.requestId}</strong>: {rowOf(r.requestId)?.status ?? r.status}
              {rowOf(r.requestId)?.decision ? ` (${rowOf(r.requestId)?.decision})` : ''}
              {r.operator ? ` by ${r.operator}` : ''}
              {r.note ? ` — “${r.note}”` : ''}
              <span class="muted small"> · {r.rationale}</span>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

function HitlForm(props: HitlPanelProps & { request: HitlView }) {
  const { request } = props;
  const [note, setNote] = useState('');
  const [payload, setPayload] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<string>();
  const parsed = parsePayload(payload);
  const needsPayload = request.mode === 'node_output';
  const resolve = async (decision: 'approve' | 'reject') => {
    if (!parsed.ok) return;
    setBusy(true);
    setError(undefined);
    try {
      const answer = await props.api.resolveHitl({
        runId: props.runId,
        requestId: request.requestId,
        decision,
        note: note.trim() || undefined,
        payload: parsed.value,
      });
      setResult(
        `${decision === 'approve' ? 'Approved' : 'Rejected'}${answer.takesEffect === 'on_resume' ? ': takes effect when the run resumes' : ''}.`,
      );
      props.onResolved();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const id = `hitl-${request.requestId}`;
  return (
    <form class="hitl" aria-labelledby={`${id}-title`} onSubmit={(e) => e.preventDefault()}>
      <h3 id={`${id}-title`}>
        {request.requestId}
        {request.nodeId ? ` · node ${request.nodeId}` : ''}
        {request.policyId ? ` · policy ${request.policyId}` : ''}
      </h3>
      <p>{request.rationale}</p>
      <p class="muted small">
        Asked {when(request.at)} ·{' '}
        {needsPayload ? 'the operator supplies the node’s output' : 'approve or reject'}
      </p>
      {request.artifact !== undefined && (
        <details>
          <summary>What is to be reviewed</summary>
          <JsonView value={request.artifact} label="Artifact under review" />
        </details>
      )}
      {request.contractSummary && (
        <details>
          <summary>Its contract</summary>
          <JsonView value={request.contractSummary} label="Contract summary" />
        </details>
      )}
      <div class="hitl-fields">
        <div>
          <label for={`${id}-note`}>Note (optional)</label>
          <textarea
            id={`${id}-note`}
            rows={2}
            maxLength={4000}
            value={note}
            onInput={(e) => setNote(e.currentTarget.value)}
          />
        </div>
        <div>
          <label for={`${id}-payload`}>
            Payload (JSON{needsPayload ? ', the node’s output' : ', optional'})
          </label>
          <textarea
            id={`${id}-payload`}
            class="mono"
            rows={needsPayload ? 6 : 2}
            spellcheck={false}
            value={payload}
            aria-invalid={!parsed.ok}
            aria-describedby={`${id}-payload-error`}
            onInput={(e) => setPayload(e.currentTarget.value)}
          />
          <p id={`${id}-payload-error`} class="error small" aria-live="polite">
            {parsed.ok ? '' : `Not JSON: ${parsed.message}`}
          </p>
        </div>
      </div>
      <div class="buttons">
        <button
          type="button"
          disabled={busy || !parsed.ok || (needsPayload && parsed.value === undefined)}
          onClick={() => void resolve('approve')}
        >
          Approve
        </button>
        <button
          type="button"
          class="danger"
          disabled={busy || !parsed.ok}
          onClick={() => void resolve('reject')}
        >
          Reject
        </button>
      </div>
      {result && <p role="status">{result}</p>}
      <ErrorNote error={error} />
      {error instanceof ApiError && error.issues.length > 0 && (
        <ul class="issues">
          {error.issues.map((i, n) => (
            <li key={n}>
              <code>{i.path || '(payload)'}</code>: {i.message}
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}

function parsePayload(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (!text.trim()) return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}
