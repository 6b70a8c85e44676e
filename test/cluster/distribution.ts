import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { sampleSum, type PromScrape } from '@flex/testing';
import type { Cluster, InstanceKind } from './cluster';

/** What one kind of instance is measured by: a metric summed over its scrape, or the agents' call log. */
export interface Measure {
  kind: InstanceKind;
  /** What the count is, for the report. */
  what: string;
  /** The sample summed (`_total`/`_count` included); none for the agents (their log is counted). */
  metric?: string;
  labels?: Record<string, string>;
}

export interface Share {
  instance: string;
  count: number;
  /** Of the kind's total, 0..1. */
  share: number;
}

export interface Distribution {
  kind: InstanceKind;
  what: string;
  total: number;
  instances: Share[];
}

/** How the work of each kind is counted in the scale-out test (docs/RELIABILITY.md quotes these). */
export const MEASURES: readonly Measure[] = [
  { kind: 'gateway', what: 'runs started', metric: 'flex_runs_started_total' },
  { kind: 'registry', what: 'requests served', metric: 'flex_registry_requests_total' },
  { kind: 'planner', what: 'plans drafted', metric: 'flex_plan_draft_duration_seconds_count' },
  deliveries('planner'),
  deliveries('validator'),
  deliveries('executor'),
  { kind: 'executor', what: 'agent calls dispatched', metric: 'flex_node_duration_seconds_count' },
  { kind: 'agents', what: 'agent calls served' },
];

/** The events a service's instances were handed by its shared durable consumer. */
function deliveries(kind: 'planner' | 'validator' | 'executor'): Measure {
  return {
    kind,
    what: 'bus deliveries handled',
    metric: 'flex_bus_deliveries_total',
    labels: { consumer: kind },
  };
}

/** Each instance's count and share of every measured kind, from live scrapes and the agents' logs. */
export async function measureDistribution(
  cluster: Cluster,
  measures: readonly Measure[] = MEASURES,
): Promise<Distribution[]> {
  const scrapes = await cluster.scrapeAll();
  return measures.map((m) => {
    const counts = cluster.instances(m.kind).map((i) => ({
      instance: i.name,
      count:
        m.metric === undefined
          ? cluster.invocations(i.name).filter((c) => c.event === 'start').length
          : sampleSum(scrapeOf(scrapes, i.name), m.metric, m.labels),
    }));
    const total = counts.reduce((sum, c) => sum + c.count, 0);
    const instances = counts.map((c) => ({ ...c, share: total === 0 ? 0 : c.count / total }));
    return { kind: m.kind, what: m.what, total, instances };
  });
}

function scrapeOf(scrapes: Map<string, PromScrape>, name: string): PromScrape {
  const scrape = scrapes.get(name);
  if (!scrape) throw new Error(`${name} was not scraped (is it running?)`);
  return scrape;
}

/** The distribution as text tables, one per kind: instance → count and share. */
export function formatDistribution(distribution: readonly Distribution[]): string {
  return distribution
    .map((d) => {
      const rows = d.instances.map(
        (s) =>
          `  ${s.instance.padEnd(12)} ${String(s.count).padStart(7)}  ${(s.share * 100).toFixed(1).padStart(5)}%`,
      );
      return [`${d.kind}: ${d.what} (total ${d.total})`, ...rows].join('\n');
    })
    .join('\n');
}

/** Write a JSON report (the directory made when missing). */
export function writeReport(file: string, report: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
