/**
 * deploy/observability/: the Grafana dashboard and the Prometheus alert rules, checked against the
 * metrics Flex really exports. Every metric name their PromQL uses must be in a scrape of the
 * families registry (FlexMetrics, started for real: the OpenTelemetry pipeline and serializer
 * behind `GET /metrics`), and every label they group by must be one those metrics carry.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { exportedName, FAMILIES, FlexMetrics } from '@flex/runtime';
import { parsePrometheusText, type PromScrape } from '@flex/testing';

const DIR = path.resolve(__dirname, '..', 'deploy', 'observability');
const read = (file: string) => fs.readFileSync(path.join(DIR, file), 'utf8');

const GROUPING = /\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g;
const TOKEN = /(\d+(?:\.\d+)?(?:e[+-]?\d+)?)|([A-Za-z_:][A-Za-z0-9_:]*)/gi;
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
]);

/** The metric names a PromQL expression selects (not functions, keywords, labels or strings). */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(GROUPING, '');
  const names = new Set<string>();
  for (const m of bare.matchAll(TOKEN)) {
    const name = m[2];
    const rest = bare.slice((m.index ?? 0) + m[0].length);
    if (name && !KEYWORDS.has(name.toLowerCase()) && !/^\s*\(/.test(rest)) names.add(name);
  }
  return [...names];
}

/** The labels an expression groups or matches on. */
function groupingLabels(expr: string): string[] {
  return [...expr.matchAll(GROUPING)].flatMap((m) =>
    m[1]
      .split(',')
      .map((l) => l.trim())
      .filter(Boolean),
  );
}

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { uid: string };
  targets?: Array<{ expr: string; datasource?: { uid: string } }>;
  panels?: Panel[];
}

const dashboard = JSON.parse(read('grafana-dashboard.json')) as {
  uid: string;
  panels: Panel[];
  templating: any;
};
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const rules = (
  parse(read('prometheus-rules.yaml')) as { groups: Array<{ name: string; rules: any[] }> }
).groups.flatMap((g) => g.rules);
const expressions = [
  ...panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr }))),
  ...rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr as string })),
];

/** A family's name and the names its samples carry (histograms: _bucket, _sum, _count). */
const familyOf = (sample: string) =>
  Object.values(FAMILIES).find((f) =>
    [exportedName(f), `${f.name}_bucket`, `${f.name}_sum`, `${f.name}_count`].includes(sample),
  );

describe('deploy/observability', () => {
  let scrape: PromScrape;

  beforeAll(async () => {
    const metrics = new FlexMetrics({ service: 'gateway' });
    scrape = parsePrometheusText(await metrics.render());
    await metrics.shutdown();
  });

  it('reads metric names out of PromQL, leaving functions, keywords, labels, strings and ranges', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, capability) (rate(flex_node_duration_seconds_bucket{kind="a b",x=~"y"}[5m]))) > 1e-3',
      ),
    ).toEqual(['flex_node_duration_seconds_bucket']);
    expect(metricNames('sum(increase(a_total[30m])) > 0 and (sum(b) + max without (x) (c)) == 0')).toEqual([
      'a_total',
      'b',
      'c',
    ]);
    expect(groupingLabels('sum by (reason) (x) / on(consumer, le) y')).toEqual(['reason', 'consumer', 'le']);
  });

  it('every metric the dashboard and the alert rules name is in a real scrape, every grouping label on it', () => {
    const scraped = new Set(scrape.samples.map((s) => s.name));
    expect(expressions.length).toBeGreaterThan(20);
    for (const { where, expr } of expressions) {
      const names = metricNames(expr);
      expect({ where, names: names.length > 0 }).toEqual({ where, names: true });
      expect({ where, missing: names.filter((n) => !scraped.has(n)) }).toEqual({ where, missing: [] });
      const carried = new Set(['le', ...names.flatMap((n) => familyOf(n)?.labels ?? [])]);
      expect({ where, unknownLabels: groupingLabels(expr).filter((l) => !carried.has(l)) }).toEqual({
        where,
        unknownLabels: [],
      });
    }
  });

  it('the dashboard shows every family; the rules watch failures, stuck runs, projection lag and dead letters', () => {
    const shown = new Set(
      panels
        .flatMap((p) => (p.targets ?? []).flatMap((t) => metricNames(t.expr)))
        .map((n) => familyOf(n)?.name),
    );
    expect(
      Object.values(FAMILIES)
        .filter((f) => !shown.has(f.name))
        .map((f) => f.name),
    ).toEqual([]);
    const watched = (alert: string) => metricNames(rules.find((r) => r.alert === alert)?.expr ?? '');
    expect(watched('FlexRunFailureRatioHigh')).toContain('flex_runs_failed_total');
    expect(watched('FlexRunsNotEnding')).toEqual(
      expect.arrayContaining(['flex_runs_started_total', 'flex_runs_completed_total']),
    );
    expect(watched('FlexProjectionLagging')).toEqual(['flex_projection_lag_seconds']);
    expect(watched('FlexDeadLetters')).toEqual(['flex_bus_dead_letters_total']);
  });

  it('is a Grafana dashboard: a uid, unique panel ids, every query on the chosen Prometheus data source', () => {
    expect(dashboard.uid).toBe('flex-overview');
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of panels.filter((p) => p.type !== 'row')) {
      expect({ panel: p.title, targets: (p.targets ?? []).length > 0 }).toEqual({
        panel: p.title,
        targets: true,
      });
      expect(p.datasource?.uid).toBe('${datasource}');
      for (const t of p.targets ?? []) expect(t.datasource?.uid).toBe('${datasource}');
    }
  });

  it('are Prometheus alerting rules: each with a name, an expression, a severity and a summary', () => {
    expect(rules.length).toBeGreaterThanOrEqual(6);
    for (const rule of rules) {
      expect(rule).toEqual(
        expect.objectContaining({
          alert: expect.stringMatching(/^Flex[A-Za-z]+$/),
          expr: expect.any(String),
          labels: expect.objectContaining({ severity: expect.stringMatching(/^(warning|critical)$/) }),
          annotations: expect.objectContaining({ summary: expect.any(String) }),
        }),
      );
      if (rule.for !== undefined) expect(rule.for).toMatch(/^\d+[smh]$/);
    }
  });
});
