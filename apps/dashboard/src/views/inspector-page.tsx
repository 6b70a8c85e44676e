import type { PlanGraph } from '@flex/contracts';
import { useState } from 'preact/hooks';
import type { FlexApi } from '../api/client';
import { routeHref } from '../router';
import { shownNodeStatus } from '../run/shown-status';
import { JsonView, Panel, StatusBadge } from './common';
import { PlanGraphView } from './plan-graph';
import { useRunDetail, useRunStream } from './run-hooks';

/**
 * The plan inspector: a run's plans as the planner made them — provenance (planner, determinism,
 * input hash, model), each node's capability (derived or not), facets, enforced constraints and
 * compiled contracts, the registry snapshot, and the policies that fired — live as the run goes.
 */
export function InspectorPage({ api, runId }: { api: FlexApi; runId?: string }) {
  if (!runId) return <ChooseRun />;
  return <Inspector api={api} runId={runId} />;
}

function ChooseRun() {
  const [id, setId] = useState('');
  return (
    <form
      class="page inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (id.trim()) location.hash = routeHref({ page: 'inspect', runId: id.trim() });
      }}
    >
      <h1>Plan inspector</h1>
      <label for="inspect-run">Run id</label>
      <input id="inspect-run" class="mono" value={id} onInput={(e) => setId(e.currentTarget.value)} />
      <button type="submit">Inspect</button>
    </form>
  );
}

function Inspector({ api, runId }: { api: FlexApi; runId: string }) {
  const stream = useRunStream(api, runId);
  const { known } = useRunDetail(api, runId, stream);
  const { view } = stream;
  return (
    <div class="page">
      <div class="page-title">
        <h1>Plan inspector</h1>
        <a class="button secondary" href={routeHref({ page: 'run', runId })}>
          Open the run page
        </a>
      </div>
      <p class="mono small">{runId}</p>
      {!view.plans.length && (
        <p class="muted">No plan accepted yet ({view.rejections.length} draft(s) rejected).</p>
      )}
      {[...view.plans].reverse().map((version) => (
        <Panel key={version.version} title={`Plan v${version.version}`} id={`inspect-v${version.version}`}>
          <Provenance plan={version.plan} planHash={version.planHash} />
          <PlanGraphView
            plan={version.plan}
            label={`Plan v${version.version}`}
            statusOf={(id) => shownNodeStatus(view, id, known)}
          />
          <NodeTable plan={version.plan} statusOf={(id) => shownNodeStatus(view, id, known)} />
        </Panel>
      ))}
      {view.policies.length > 0 && (
        <Panel title="Policy triggers" id="inspect-policies">
          <ul class="plain small">
            {view.policies.map((p) => (
              <li key={p.position}>
                <code>{p.policyId}</code> on {String(p.trigger.kind)} → {p.action?.type ?? '—'}:{' '}
                {p.decision.result} ({p.decision.reason})
              </li>
            ))}
          </ul>
        </Panel>
      )}
    </div>
  );
}

function Provenance({ plan, planHash }: { plan: PlanGraph; planHash: string }) {
  const m = plan.metadata;
  return (
    <dl class="facts small">
      <dt>Planner</dt>
      <dd>
        {m.plannerId} {m.plannerVersion} ({m.determinism} determinism){m.model ? `, model ${m.model}` : ''}
      </dd>
      <dt>Input hash</dt>
      <dd class="mono">{m.inputHash}</dd>
      <dt>Plan hash</dt>
      <dd class="mono">{planHash}</dd>
      {m.derivedCapabilities?.length ? (
        <>
          <dt>Derived capabilities</dt>
          <dd class="mono">{m.derivedCapabilities.join(', ')}</dd>
        </>
      ) : null}
      {m.fallbackReason && (
        <>
          <dt>Fallback</dt>
          <dd>{m.fallbackReason}</dd>
        </>
      )}
      {m.tokens && (
        <>
          <dt>Tokens</dt>
          <dd>
            {m.tokens.input} in, {m.tokens.output} out
          </dd>
        </>
      )}
    </dl>
  );
}

function NodeTable({ plan, statusOf }: { plan: PlanGraph; statusOf: (id: string) => string }) {
  return (
    <table class="small">
      <thead>
        <tr>
          <th scope="col">Node</th>
          <th scope="col">Capability</th>
          <th scope="col">Reads → writes</th>
          <th scope="col">Enforces</th>
          <th scope="col">State</th>
          <th scope="col">Contracts</th>
        </tr>
      </thead>
      <tbody>
        {plan.nodes.map((n) => (
          <tr key={n.id}>
            <td>
              <strong>{n.label}</strong>
              <div class="mono">
                {n.id} · {n.kind}
              </div>
            </td>
            <td class="mono">
              {n.capabilityId ?? '—'}
              {n.derived ? ` (derived from ${n.derivedFrom ?? '?'})` : ''}
            </td>
            <td class="mono">
              {n.inputFacets.join(', ') || '—'} → {n.outputFacets.join(', ') || '—'}
            </td>
            <td class="mono">{n.enforces?.join(', ') ?? ''}</td>
            <td>
              <StatusBadge status={statusOf(n.id)} />
            </td>
            <td>
              <details>
                <summary>schemas</summary>
                <JsonView
                  value={{ input: n.inputSchema, output: n.outputSchema, provenance: n.provenance }}
                />
              </details>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
