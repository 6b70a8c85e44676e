import { parseRoute, routeHref, type Route } from './router';

describe('routes', () => {
  it.each<Route>([
    { page: 'runs' },
    { page: 'runs', status: 'awaiting_hitl', per: 10 },
    { page: 'run', runId: 'run_abc' },
    { page: 'run', runId: 'run_abc', nodeId: 'execution-1' },
    { page: 'new' },
    { page: 'capabilities' },
    { page: 'sandbox' },
    { page: 'inspect', runId: 'run_abc' },
  ])('%j survives a round trip through the address', (route) => {
    expect(parseRoute(routeHref(route))).toEqual(expect.objectContaining(route));
  });

  it('falls back to the runs list for anything else, and ignores a page size out of range', () => {
    expect(parseRoute('#/nowhere')).toEqual({ page: 'runs' });
    expect(parseRoute('#/runs?per=1000')).toEqual({ page: 'runs', per: undefined, status: undefined });
  });
});
