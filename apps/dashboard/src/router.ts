/**
 * The dashboard's pages, addressed by the URL's fragment (`#/runs/run_1`): the gateway serves one
 * page at `/`, and the fragment never reaches a server. The token is never part of a route.
 */
export type Route =
  | { page: 'runs'; status?: string; per?: number }
  | { page: 'run'; runId: string; nodeId?: string }
  | { page: 'new' }
  | { page: 'capabilities' }
  | { page: 'what-if' }
  | { page: 'sandbox' }
  | { page: 'inspect'; runId?: string };

export function parseRoute(hash: string): Route {
  const [path, query = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  switch (parts[0]) {
    case 'runs':
      if (parts[1]) return { page: 'run', runId: parts[1], nodeId: params.get('node') ?? undefined };
      return { page: 'runs', status: params.get('status') ?? undefined, per: perPage(params.get('per')) };
    case 'new':
      return { page: 'new' };
    case 'capabilities':
      return { page: 'capabilities' };
    case 'policy-what-if':
      return { page: 'what-if' };
    case 'sandbox':
      if (parts[1] === 'inspect') return { page: 'inspect', runId: parts[2] };
      return { page: 'sandbox' };
    default:
      return { page: 'runs' };
  }
}

export function routeHref(route: Route): string {
  switch (route.page) {
    case 'runs': {
      const query = new URLSearchParams();
      if (route.status) query.set('status', route.status);
      if (route.per) query.set('per', String(route.per));
      const text = query.toString();
      return text ? `#/runs?${text}` : '#/runs';
    }
    case 'run':
      return `#/runs/${encodeURIComponent(route.runId)}${route.nodeId ? `?node=${encodeURIComponent(route.nodeId)}` : ''}`;
    case 'new':
      return '#/new';
    case 'capabilities':
      return '#/capabilities';
    case 'what-if':
      return '#/policy-what-if';
    case 'sandbox':
      return '#/sandbox';
    case 'inspect':
      return route.runId ? `#/sandbox/inspect/${encodeURIComponent(route.runId)}` : '#/sandbox/inspect';
  }
}

/** Runs per page: 1 to 100, or the page's default. */
function perPage(value: string | null): number | undefined {
  const n = Number(value);
  return value && Number.isInteger(n) && n >= 1 && n <= 100 ? n : undefined;
}
