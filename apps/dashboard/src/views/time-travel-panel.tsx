import { useRef, useState } from 'preact/hooks';
import type { FlexApi } from '../api/client';
import type { Frame, RunDetail } from '../api/types';
import { statusLabel } from '../format';
import { ErrorNote, JsonView, StatusBadge } from './common';

/**
 * Scrub through a run's history: a slider over its events; each stop asks the API for the run as
 * it stood once that event was applied (`GET runs/:id?at=<position>`) and shows its status, plan
 * version, nodes and output then. Closed until opened, so a live run's page asks nothing of it.
 */
export function TimeTravelPanel({ api, runId, frames }: { api: FlexApi; runId: string; frames: Frame[] }) {
  const [index, setIndex] = useState<number | undefined>();
  const [shown, setShown] = useState<{ frame: Frame; detail: RunDetail } | undefined>();
  const [error, setError] = useState<unknown>();
  const asked = useRef(0);
  if (frames.length === 0) return null;
  const at = Math.min(index ?? frames.length - 1, frames.length - 1);
  const show = async (i: number) => {
    setIndex(i);
    const frame = frames[i];
    const ask = ++asked.current;
    try {
      const detail = await api.runAt(runId, frame.position);
      // A slower answer to an earlier stop never replaces a later one.
      if (ask !== asked.current) return;
      setShown({ frame, detail });
      setError(undefined);
    } catch (e) {
      if (ask === asked.current) setError(e);
    }
  };
  return (
    <details class="panel" onToggle={(e) => (e.currentTarget as HTMLDetailsElement).open && void show(at)}>
      <summary>
        <h2 class="inline-heading">Time travel</h2>
      </summary>
      <label>
        Event {at + 1} of {frames.length}: <span class="mono">{statusLabel(frames[at].type)}</span>
        <input
          type="range"
          min={0}
          max={frames.length - 1}
          value={at}
          aria-label="Event to show the run at"
          onChange={(e) => void show(Number((e.currentTarget as HTMLInputElement).value))}
        />
      </label>
      <ErrorNote error={error} />
      {shown && <AsOf frame={shown.frame} detail={shown.detail} />}
    </details>
  );
}

function AsOf({ frame, detail }: { frame: Frame; detail: RunDetail }) {
  return (
    <div data-time-travel-position={frame.position}>
      <p>
        As of event #{frame.position} ({frame.timestamp.slice(11, 23)}):{' '}
        <span data-time-travel-status={detail.run.status}>
          <StatusBadge status={detail.run.status} />
        </span>{' '}
        plan v{detail.run.planVersion}
      </p>
      <table class="small">
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Status</th>
            <th scope="col">Attempt</th>
          </tr>
        </thead>
        <tbody>
          {detail.nodes.map((n) => (
            <tr key={n.nodeId}>
              <td class="mono">{n.nodeId}</td>
              <td>{statusLabel(n.status)}</td>
              <td>{n.attempt}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {detail.output && <JsonView value={detail.output.output} label="Output then" />}
    </div>
  );
}
