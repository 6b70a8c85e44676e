import { createServer } from 'node:http';
import type { AgentHandle, AgentLogger } from '@flex/agent-sdk';

const OUTCOMES = {
  agent_invocation_completed: 'ok',
  agent_invocation_replayed: 'replayed',
  agent_invocation_failed: 'error',
} as const;

/** Counts invocations per capability and outcome from the SDK's log events (the SDK reports through its logger). */
export class InvocationCounter {
  private readonly counts = new Map<string, number>();

  /** A logger that counts invocation events, then passes every entry on to `inner`. */
  wrap(inner: AgentLogger): AgentLogger {
    const count = (msg: string, data?: Record<string, unknown>) => {
      const outcome = OUTCOMES[msg as keyof typeof OUTCOMES];
      if (outcome) {
        const key = `capability="${String(data?.capabilityId)}",outcome="${outcome}"${outcome === 'error' ? `,code="${String(data?.code)}"` : ''}`;
        this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
      }
    };
    const at = (fn: AgentLogger['info']) => (msg: string, data?: Record<string, unknown>) => {
      count(msg, data);
      fn.call(inner, msg, data);
    };
    return { debug: at(inner.debug), info: at(inner.info), warn: at(inner.warn), error: at(inner.error) };
  }

  lines(): string[] {
    return [...this.counts]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([labels, n]) => `flex_agent_invocations_total{${labels}} ${n}`);
  }
}

export interface HealthServer {
  /** The agents to report on, once they serve. */
  attach(handles: readonly AgentHandle[]): void;
  close(): Promise<void>;
}

/**
 * `/healthz`, `/readyz` and `/metrics` for orchestrators that probe over HTTP. `/healthz`: 503 while
 * connecting, 200 once the agents serve; `registered` says whether a registry has accepted each one
 * yet. `/readyz`: 200 once every agent is registered (the planner can draft with them), 503 before.
 */
export async function startHealthServer(port: number, counter: InvocationCounter): Promise<HealthServer> {
  let handles: readonly AgentHandle[] = [];
  const registered = new Set<string>();
  const server = createServer((req, res) => {
    const agents = handles.map((h) => ({
      capabilityId: h.capabilityId,
      instanceId: h.instanceId,
      registered: registered.has(h.instanceId),
    }));
    if (req.url === '/healthz') {
      res.writeHead(agents.length > 0 ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: agents.length > 0 ? 'ok' : 'starting', agents }));
    } else if (req.url === '/readyz') {
      const ready = agents.length > 0 && agents.every((a) => a.registered);
      res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: ready ? 'ready' : 'starting', agents }));
    } else if (req.url === '/metrics') {
      const up = agents.map(
        (a) => `flex_agent_registered{capability="${a.capabilityId}"} ${a.registered ? 1 : 0}`,
      );
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(
        [
          '# TYPE flex_agent_registered gauge',
          ...up,
          '# TYPE flex_agent_invocations_total counter',
          ...counter.lines(),
          '',
        ].join('\n'),
      );
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, () => resolve()));
  return {
    attach: (started) => {
      handles = started;
      for (const h of started)
        h.ready.then(
          () => registered.add(h.instanceId),
          () => undefined,
        );
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
