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
/** The statuses an operator can pause a run in (the API refuses the others). */
const PAUSABLE = new Set(['running', 'awaiting_hitl']);

/**
 * What an operator can do to a run that has not ended: pause it (with an optional reason) while it
 * runs or waits for a human, fire its manual policies, resume it when it is paused, cancel it (each
 * of pause and cancel after a second, explicit step that asks why).
 */
export function RunControls(props: RunControlsProps) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<'pause' | 'cancel'>();
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
          class="secondary"
          disabled={busy || props.status === 'paused'}
          onClick={() => void act(`Policy ${p.id} fired.`, () => props.api.triggerPolicy(props.runId, p.id))}
        >
          {`Fire ${p.id}`}
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
      {PAUSABLE.has(props.status) && confirming !== 'pause' && (
        <button type="button" disabled={busy} onClick={() => setConfirming('pause')}>
          Pause…
        </button>
      )}
      {confirming === 'pause' && (
        <ReasonForm
          id="pause-reason"
          label="Why pause (optional)"
          submit="Pause the run"
          keep="Do not pause"
          busy={busy}
          onClose={() => setConfirming(undefined)}
          onSubmit={(reason) => void act('Paused.', () => props.api.pause(props.runId, reason))}
        />
      )}
      {confirming !== 'cancel' ? (
        <button type="button" class="danger" disabled={busy} onClick={() => setConfirming('cancel')}>
          Cancel run…
        </button>
      ) : (
        <ReasonForm
          id="cancel-reason"
          label="Reason (optional)"
          submit="Cancel the run"
          keep="Keep it running"
          danger
          busy={busy}
          onClose={() => setConfirming(undefined)}
          onSubmit={(reason) => void act('Cancelled.', () => props.api.cancel(props.runId, reason))}
        />
      )}
      {done && <span role="status">{done}</span>}
      <ErrorNote error={error} />
    </div>
  );
}

interface ReasonFormProps {
  id: string;
  label: string;
  submit: string;
  keep: string;
  danger?: boolean;
  busy: boolean;
  onClose: () => void;
  /** With the reason typed, if any. */
  onSubmit: (reason?: string) => void;
}

/** The second step of pause and cancel: why (optional), then do it or step back. */
function ReasonForm(props: ReasonFormProps) {
  const [reason, setReason] = useState('');
  return (
    <form
      class="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        props.onClose();
        props.onSubmit(reason.trim() || undefined);
      }}
    >
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        value={reason}
        maxLength={2000}
        onInput={(e) => setReason(e.currentTarget.value)}
      />
      <button type="submit" class={props.danger ? 'danger' : ''} disabled={props.busy}>
        {props.submit}
      </button>
      <button type="button" class="quiet" onClick={props.onClose}>
        {props.keep}
      </button>
    </form>
  );
}

function manualPolicies(envelope?: TaskEnvelope): RuntimePolicy[] {
  return (envelope?.policies?.runtime ?? []).filter(
    (p) => p.trigger.kind === 'manual' && p.enabled !== false,
  );
}
