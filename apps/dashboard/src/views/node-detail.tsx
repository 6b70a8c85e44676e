import type { PlanGraph, PlanNode, TaskEnvelope } from '@flex/contracts';
import type { NodeRow } from '../api/types';
import { when } from '../format';
import type { AttemptView, NodeView } from '../run/run-view';
import { JsonView, Panel, StatusBadge } from './common';

export interface NodeDetailProps {
  plan: PlanGraph;
  node: PlanNode;
  view?: NodeView;
  row?: NodeRow;
  status: string;
  /** Outputs of the run's nodes so far, by node id (what a node is handed comes from these). */
  outputs: Record<string, Record<string, unknown> | undefined>;
  envelope?: TaskEnvelope;
}

/** One node: what it is, what it read and wrote, each attempt and what its validation said. */
export function NodeDetail(props: NodeDetailProps) {
  const { node, view } = props;
  const attempts = view?.attempts ?? [];
  const inputs = inputsOf(props);
  const output =
    [...attempts].reverse().find((a) => a.output)?.output ??
    (props.row?.output as Record<string, unknown> | undefined);
  return (
    <Panel title={`Node ${node.label}`} id="node">
      <dl class="facts">
        <dt>Id</dt>
        <dd class="mono">{node.id}</dd>
        <dt>State</dt>
        <dd>
          <StatusBadge status={props.status} />
        </dd>
        <dt>Kind</dt>
        <dd>{node.kind}</dd>
        <dt>Capability</dt>
        <dd class="mono">
          {node.capabilityId ?? '—'}
          {node.derived ? ` (derived from ${node.derivedFrom ?? '?'})` : ''}
        </dd>
        <dt>Reads</dt>
        <dd class="mono">{node.inputFacets.join(', ') || '—'}</dd>
        <dt>Writes</dt>
        <dd class="mono">{node.outputFacets.join(', ') || '—'}</dd>
        {node.enforces?.length ? (
          <>
            <dt>Enforces</dt>
            <dd class="mono">{node.enforces.join(', ')}</dd>
          </>
        ) : null}
      </dl>
      {node.rationale && <p class="small">{node.rationale}</p>}
      <h3>Inputs</h3>
      <JsonView value={inputs.known} label={`Inputs of ${node.id}`} />
      {inputs.unseen.length > 0 && (
        <p class="muted small">
          Not on the stream, assembled when the node is invoked:{' '}
          <span class="mono">{inputs.unseen.join(', ')}</span>
        </p>
      )}
      <h3>Output</h3>
      <JsonView value={output} label={`Output of ${node.id}`} />
      <h3>Attempts</h3>
      <Attempts attempts={attempts} />
      <details>
        <summary>Compiled contracts and bindings</summary>
        <h4>Input schema</h4>
        <JsonView value={node.inputSchema} label={`Input schema of ${node.id}`} />
        <h4>Output schema</h4>
        <JsonView value={node.outputSchema} label={`Output schema of ${node.id}`} />
        {node.bindings && (
          <>
            <h4>Bindings</h4>
            <JsonView value={node.bindings} label={`Bindings of ${node.id}`} />
          </>
        )}
        {node.provenance && (
          <>
            <h4>Facet provenance</h4>
            <JsonView value={node.provenance} label={`Provenance of ${node.id}`} />
          </>
        )}
      </details>
    </Panel>
  );
}

function Attempts({ attempts }: { attempts: AttemptView[] }) {
  if (!attempts.length) return <p class="muted">Not started.</p>;
  return (
    <ol class="attempts">
      {attempts.map((a) => (
        <li key={a.attempt}>
          <strong>Attempt {a.attempt}</strong>
          {a.capabilityId && <span class="mono small"> · {a.capabilityId}</span>}
          {a.startedAt && <span class="small"> · started {when(a.startedAt)}</span>}
          {a.durationMs !== undefined && <span class="small"> · {Math.round(a.durationMs)} ms</span>}
          {a.output && <span class="small ok"> · output accepted</span>}
          {a.error && (
            <p class="error small">
              {a.error.code}: {a.error.message}
              {a.willRetry ? ' (will retry)' : ''}
            </p>
          )}
          {a.validationErrors.length > 0 && (
            <table class="small">
              <caption>Validation errors</caption>
              <thead>
                <tr>
                  <th scope="col">Scope</th>
                  <th scope="col">Path</th>
                  <th scope="col">Rule</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                {a.validationErrors.map((e, i) => (
                  <tr key={i}>
                    <td>{e.scope}</td>
                    <td class="mono">{e.path || '(root)'}</td>
                    <td class="mono">{[e.facet, e.keyword].filter(Boolean).join(' · ')}</td>
                    <td>{e.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </li>
      ))}
    </ol>
  );
}

/**
 * What the node reads, facet by facet: the value an upstream node wrote under that facet, else
 * the envelope's input of that name (secrets stay references: the page never has their values).
 */
function inputsOf(props: NodeDetailProps): { known: Record<string, unknown>; unseen: string[] } {
  const upstream = props.plan.edges.filter((e) => e.to === props.node.id).map((e) => e.from);
  const known: Record<string, unknown> = {};
  const unseen: string[] = [];
  for (const facet of props.node.inputFacets) {
    const from = upstream.find((id) => props.outputs[id] && facet in (props.outputs[id] ?? {}));
    if (from) known[facet] = props.outputs[from]?.[facet];
    else if (props.envelope && facet in props.envelope.inputs) known[facet] = props.envelope.inputs[facet];
    else unseen.push(facet);
  }
  return { known, unseen };
}
