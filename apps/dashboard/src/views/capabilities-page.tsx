import { useEffect, useState } from 'preact/hooks';
import type { FlexApi } from '../api/client';
import type { CapabilityView } from '../api/types';
import { age, when } from '../format';
import { ErrorNote, StatusBadge } from './common';

const REFRESH_MS = 5_000;

/** The live registry: each capability, its instances, and how long since it was last heard from. */
export function CapabilitiesPage({ api }: { api: FlexApi }) {
  const [capabilities, setCapabilities] = useState<CapabilityView[]>();
  const [error, setError] = useState<unknown>();
  const now = useNow();
  useEffect(() => {
    const load = () =>
      api.capabilities().then(
        (c) => {
          setCapabilities(c);
          setError(undefined);
        },
        (e: unknown) => setError(e),
      );
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [api]);
  return (
    <div class="page">
      <h1>Capabilities</h1>
      <ErrorNote error={error} />
      {capabilities && <CapabilityTable capabilities={capabilities} now={now} />}
    </div>
  );
}

export function CapabilityTable({ capabilities, now }: { capabilities: CapabilityView[]; now: number }) {
  if (!capabilities.length) return <p class="muted">No capability has registered.</p>;
  return (
    <table class="capabilities">
      <caption class="sr-only">Registered capabilities</caption>
      <thead>
        <tr>
          <th scope="col">Capability</th>
          <th scope="col">Status</th>
          <th scope="col">Instances</th>
          <th scope="col">Last heartbeat</th>
          <th scope="col">Reads → writes</th>
          <th scope="col">Registered</th>
        </tr>
      </thead>
      <tbody>
        {capabilities.map((c) => {
          const r = c.registration;
          const late = heartbeatLate(c, now);
          return (
            <tr key={r.capabilityId}>
              <td>
                <strong>{r.displayName}</strong> <span class="muted small">({r.agentType})</span>
                <div class="mono small">
                  {r.capabilityId} · v{r.version}
                </div>
                <div class="small">{r.summary}</div>
              </td>
              <td>
                <StatusBadge status={c.status} />
              </td>
              <td>{c.activeInstances}</td>
              <td class={late ? 'late' : ''} data-heartbeat-age>
                {age(c.lastSeenAt, now)} ago
                {late && <div class="small">late: expected every {r.heartbeat?.intervalSeconds} s</div>}
              </td>
              <td class="mono small">
                {r.inputContract.join(', ') || '—'} → {r.outputContract.join(', ')}
              </td>
              <td class="small">{when(c.registeredAt)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Later than twice the interval it promised (the registry marks it inactive at its timeout). */
function heartbeatLate(c: CapabilityView, now: number): boolean {
  const interval = c.registration.heartbeat?.intervalSeconds;
  return c.status === 'active' && !!interval && now - Date.parse(c.lastSeenAt) > 2 * interval * 1000;
}

/** The time, ticking every second, so ages stay true between refreshes. */
export function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}
