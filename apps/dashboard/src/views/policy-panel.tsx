import { when } from '../format';
import type { PolicyDecision } from '../run/run-view';
import { JsonView, Panel } from './common';

/** Every runtime policy that fired: its trigger, the action it asked for, and the engine's DecisionContract. */
export function PolicyPanel({ decisions }: { decisions: PolicyDecision[] }) {
  if (!decisions.length) return null;
  return (
    <Panel title="Policy decisions" id="policies">
      <table class="small">
        <caption class="sr-only">Policy decisions, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Policy</th>
            <th scope="col">Trigger</th>
            <th scope="col">Action</th>
            <th scope="col">Decision</th>
            <th scope="col">Reason and suggestion</th>
          </tr>
        </thead>
        <tbody>
          {decisions.map((d) => (
            <tr key={d.position}>
              <td>{when(d.at)}</td>
              <td class="mono">
                {d.policyId}
                {d.nodeId ? ` · ${d.nodeId}` : ''}
              </td>
              <td class="mono">{String(d.trigger.kind ?? '')}</td>
              <td class="mono">{d.action?.type ?? '—'}</td>
              <td>
                <span class={`badge decision-${d.decision.result}`}>{d.decision.result}</span>{' '}
                {d.decision.severity}
              </td>
              <td>
                {d.decision.reason}
                {d.decision.suggestion && <div class="muted">Suggestion: {d.decision.suggestion}</div>}
                {d.decision.alternative && (
                  <details>
                    <summary>Alternative</summary>
                    <JsonView value={d.decision.alternative} label="Alternative" />
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}
