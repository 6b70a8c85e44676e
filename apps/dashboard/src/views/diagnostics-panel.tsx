import type { DiagnosticsBundle, PlanDiagnostic } from '@flex/contracts';
import { percent, when } from '../format';
import type { RunView } from '../run/run-view';
import { Panel } from './common';

/**
 * The validator's findings: the current plan's bundle (status, proof verdict, satisfaction score),
 * the score observed on the output, every rejected draft's, and a failed run's last.
 */
export function DiagnosticsPanel({ view }: { view: RunView }) {
  const current = view.plans.at(-1);
  return (
    <Panel title="Diagnostics" id="diagnostics">
      {current ? (
        <Bundle title={`Plan v${current.version}`} bundle={current.diagnostics} />
      ) : (
        <p class="muted">No accepted plan yet.</p>
      )}
      {view.satisfaction?.observed !== undefined && (
        <p>
          Observed on the output: <strong>{percent(view.satisfaction.observed)}</strong>
        </p>
      )}
      {view.failure?.diagnostics && <Bundle title="At failure" bundle={view.failure.diagnostics} />}
      {view.rejections.map((r) => (
        <details key={`${r.attempt}-${r.at}`}>
          <summary>
            Rejected draft, attempt {r.attempt} ({r.source}, {when(r.at)}): {r.diagnostics.failures.length}{' '}
            failure(s)
          </summary>
          <Bundle title={`Attempt ${r.attempt}`} bundle={r.diagnostics} />
        </details>
      ))}
    </Panel>
  );
}

function Bundle({ title, bundle }: { title: string; bundle: DiagnosticsBundle }) {
  const findings = [...bundle.failures, ...bundle.warnings, ...bundle.infos];
  return (
    <div class="bundle">
      <h3>{title}</h3>
      <p>
        <span class={`badge diag-${bundle.status}`}>{bundle.status.replace(/_/g, ' ')}</span>
        {bundle.verdict && <span class="badge">proof: {bundle.verdict}</span>}{' '}
        <label class="inline">
          Satisfaction score <strong>{percent(bundle.satisfactionScore)}</strong>{' '}
          <meter min={0} max={1} low={0.5} high={0.99} optimum={1} value={bundle.satisfactionScore} />
        </label>
      </p>
      {findings.length > 0 && <Findings findings={findings} />}
    </div>
  );
}

function Findings({ findings }: { findings: PlanDiagnostic[] }) {
  return (
    <table class="small">
      <caption class="sr-only">Findings</caption>
      <thead>
        <tr>
          <th scope="col">Severity</th>
          <th scope="col">Status</th>
          <th scope="col">Cause</th>
          <th scope="col">Constraint</th>
          <th scope="col">Where</th>
          <th scope="col">Suggestion</th>
        </tr>
      </thead>
      <tbody>
        {findings.map((d, i) => (
          <tr key={i} class={d.severity === 'hard' && d.status === 'unsatisfied' ? 'row-bad' : ''}>
            <td>{d.severity}</td>
            <td>{d.status}</td>
            <td>{d.cause}</td>
            <td>
              {d.constraintId && <code>{d.constraintId}</code>} {d.constraint}
            </td>
            <td class="mono">{[d.nodeId, d.capabilityId].filter(Boolean).join(' · ')}</td>
            <td>{d.suggestion?.split('\n')[0]}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
