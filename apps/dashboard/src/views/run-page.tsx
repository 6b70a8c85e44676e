import { useMemo } from 'preact/hooks';
import type { FlexApi } from '../api/client';
import type { Frame } from '../api/types';
import { percent, statusLabel, when } from '../format';
import { routeHref } from '../router';
import { currentPlan } from '../run/run-view';
import { shownNodeStatus, shownRunStatus } from '../run/shown-status';
import { ErrorNote, JsonView, Panel, StatusBadge } from './common';
import { DiagnosticsPanel } from './diagnostics-panel';
import { HitlPanel } from './hitl-panel';
import { NodeDetail } from './node-detail';
import { PlanPanel } from './plan-panel';
import { PolicyPanel } from './policy-panel';
import { RunControls } from './run-controls';
import { useRunDetail, useRunStream, type Connection } from './run-hooks';
import { TimeTravelPanel } from './time-travel-panel';

const CONNECTION_WORDS: Record<Connection, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
  ended: 'ended',
  failed: 'not available',
};

/** One run, live: its plan graph, nodes, HITL requests, diagnostics, policy decisions and output. */
export function RunPage({ api, runId, nodeId }: { api: FlexApi; runId: string; nodeId?: string }) {
  const stream = useRunStream(api, runId);
  const { known, error: detailError, refresh } = useRunDetail(api, runId, stream);
  const { view } = stream;
  const status = shownRunStatus(view, known);
  const plan = currentPlan(view)?.plan ?? known?.detail.planVersions.at(-1)?.plan;
  const statusOf = (id: string) => shownNodeStatus(view, id, known);
  const attemptOf = (id: string) => view.nodes[id]?.attempts.at(-1)?.attempt;
  const select = (id: string) => {
    // The node is part of the address (a link to it works), without a history entry per click.
    history.replaceState(null, '', routeHref({ page: 'run', runId, nodeId: id }));
    dispatchEvent(new HashChangeEvent('hashchange'));
  };
  const selected = plan?.nodes.find((n) => n.id === nodeId) ? nodeId : undefined;
  const outputs = useMemo(() => outputsOf(view.nodes), [view.nodes]);
  const node = plan?.nodes.find((n) => n.id === selected);
  const summary = known?.detail.run;
  return (
    <div class="page run-page">
      <div class="page-title">
        <h1>{view.envelope?.objective ?? summary?.objective ?? runId}</h1>
        <span data-run-status={status} aria-live="polite">
          <StatusBadge status={status} />
        </span>
      </div>
      <p class="muted small" aria-live="polite">
        <span class="mono">{runId}</span> · started {when(summary?.createdAt)} · plan v
        {summary?.planVersion ?? plan?.planVersion ?? 0}
        {' · '}stream <span data-connection={stream.connection}>{CONNECTION_WORDS[stream.connection]}</span>
      </p>
      <ErrorNote error={stream.connection === 'failed' ? stream.error : detailError} />
      <RunControls
        api={api}
        runId={runId}
        status={status}
        planVersion={summary?.planVersion ?? plan?.planVersion ?? 1}
        envelope={view.envelope}
        onChanged={() => void refresh()}
      />
      <HitlPanel
        api={api}
        runId={runId}
        requests={Object.values(view.hitl)}
        rows={known?.detail.hitlRequests ?? []}
        onResolved={() => void refresh()}
      />
      <div class={view.plans.length > 1 ? 'run-grid compare' : 'run-grid'}>
        <PlanPanel
          plans={view.plans}
          statusOf={statusOf}
          attemptOf={attemptOf}
          selected={selected}
          onSelect={select}
        />
        {plan && node ? (
          <NodeDetail
            plan={plan}
            node={node}
            view={view.nodes[node.id]}
            row={known?.detail.nodes.find((n) => n.nodeId === node.id)}
            status={statusOf(node.id)}
            outputs={outputs}
            envelope={view.envelope}
          />
        ) : (
          <Panel title="Node" id="node">
            <p class="muted">
              Choose a node in the graph to see its inputs, outputs, attempts and validation errors.
            </p>
          </Panel>
        )}
      </div>
      <Outcome view={view} status={status} />
      <DiagnosticsPanel view={view} />
      <PolicyPanel decisions={view.policies} />
      <TimeTravelPanel api={api} runId={runId} frames={stream.frames} />
      <EventLog frames={stream.frames} />
    </div>
  );
}

function Outcome({ view, status }: { view: ReturnType<typeof useRunStream>['view']; status: string }) {
  if (view.output)
    return (
      <Panel title="Output" id="output">
        <p>
          Satisfaction score {percent(view.satisfaction?.score)}; valid against the envelope’s output
          contract.
        </p>
        <JsonView value={view.output} label="Run output" />
      </Panel>
    );
  if (view.failure)
    return (
      <Panel title="Failure" id="output">
        <p class="error">
          <strong>{view.failure.code}</strong>: {view.failure.reason}
        </p>
      </Panel>
    );
  if (view.cancelled)
    return (
      <Panel title="Cancelled" id="output">
        <p>
          Cancelled by {view.cancelled.by}
          {view.cancelled.reason ? `: ${view.cancelled.reason}` : ''}.
        </p>
      </Panel>
    );
  if (view.paused && status === 'paused')
    return (
      <Panel title="Paused" id="output">
        <p>
          {view.paused.reason}
          {view.paused.policyId ? ` (policy ${view.paused.policyId})` : ''}
          {view.paused.by ? ` (paused by ${view.paused.by})` : ''}
        </p>
      </Panel>
    );
  return null;
}

function EventLog({ frames }: { frames: Frame[] }) {
  return (
    <details class="panel">
      <summary>
        <h2 class="inline-heading">Events ({frames.length})</h2>
      </summary>
      <table class="small events">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Time</th>
            <th scope="col">Type</th>
            <th scope="col">Node</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {frames.map((f) => (
            <tr key={f.position}>
              <td class="mono">{f.position}</td>
              <td>{f.timestamp.slice(11, 23)}</td>
              <td class="mono">{statusLabel(f.type)}</td>
              <td class="mono">{f.nodeId ?? ''}</td>
              <td>{f.message ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

function outputsOf(nodes: ReturnType<typeof useRunStream>['view']['nodes']) {
  const outputs: Record<string, Record<string, unknown> | undefined> = {};
  for (const [id, node] of Object.entries(nodes))
    outputs[id] = [...node.attempts].reverse().find((a) => a.output)?.output;
  return outputs;
}
