import type { RuntimePolicy, TaskEnvelope } from '@flex/contracts';
import { useState } from 'preact/hooks';
import type { FlexApi } from '../api/client';
import { ErrorNote } from './common';

export interface RunControlsProps {
  api: FlexApi;
  runId: string;
  status: string;
  planVersion: number;
  envelope?: TaskEnvelope;
  onChanged: () => void;
}

const ENDED = new Set(['completed', 'failed', 'cancelled']);

/**
 * What an operator can do to a run that has not ended: fire its manual policies (a `pause` policy
 * is how a run is paused), resume it when it is paused, cancel it (after a second, explicit step).
 */
export function RunControls(props: RunControlsProps) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [reason, setReason] = useState('');
  const [done, setDone] = useState<string>();
  if (ENDED.has(props.status)) return null;
  const act = async (what: string, call: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      await call();
      setDone(what);
      props.onChanged();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const manual = manualPolicies(props.envelope);
  return (
    <div class="controls" role="group" aria-label="Run controls">
      {manual.map((p) => (
        <button
          key={p.id}
          type="button"
          class={p.action.type === 'pause' ? '' : 'secondary'}
          disabled={busy || props.status === 'paused'}
          onClick={() => void act(`Policy ${p.id} fired.`, () => props.api.triggerPolicy(props.runId, p.id))}
        >
          {p.action.type === 'pause' ? 'Pause' : `Fire ${p.id}`}
          <span class="small">
            {' '}
            ({p.action.type}, policy {p.id})
          </span>
        </button>
      ))}
      {props.status === 'paused' && (
        <button
          type="button"
          disabled={busy}
          onClick={() => void act('Resumed.', () => props.api.resume(props.runId, props.planVersion))}
        >
          Resume
        </button>
      )}
      {!confirming ? (
        <button type="button" class="danger" disabled={busy} onClick={() => setConfirming(true)}>
          Cancel run…
        </button>
      ) : (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            setConfirming(false);
            void act('Cancelled.', () => props.api.cancel(props.runId, reason.trim() || undefined));
          }}
        >
          <label for="cancel-reason">Reason (optional)</label>
          <input
            id="cancel-reason"
            value={reason}
            maxLength={2000}
            onInput={(e) => setReason(e.currentTarget.value)}
          />
          <button type="submit" class="danger" disabled={busy}>
            Cancel the run
          </button>
          <button type="button" class="quiet" onClick={() => setConfirming(false)}>
            Keep it running
          </button>
        </form>
      )}
      {done && <span role="status">{done}</span>}
      <ErrorNote error={error} />
    </div>
  );
}

function manualPolicies(envelope?: TaskEnvelope): RuntimePolicy[] {
  return (envelope?.policies?.runtime ?? []).filter(
    (p) => p.trigger.kind === 'manual' && p.enabled !== false,
  );
}
