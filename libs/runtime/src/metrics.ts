/** A small Prometheus text-format registry: counters and histograms with labels. */
export interface Metrics {
  inc(name: string, labels?: Record<string, string>, by?: number): void;
  observe(name: string, value: number, labels?: Record<string, string>): void;
  render(): string;
}

const BUCKETS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000];

export function createMetrics(): Metrics {
  const counters = new Map<string, Map<string, number>>();
  const histograms = new Map<string, Map<string, { counts: number[]; sum: number; count: number }>>();
  const key = (labels?: Record<string, string>) =>
    labels
      ? Object.keys(labels)
          .sort()
          .map((k) => `${k}="${escape(labels[k])}"`)
          .join(',')
      : '';
  return {
    inc(name, labels, by = 1) {
      const series = counters.get(name) ?? new Map<string, number>();
      series.set(key(labels), (series.get(key(labels)) ?? 0) + by);
      counters.set(name, series);
    },
    observe(name, value, labels) {
      const series = histograms.get(name) ?? new Map();
      const h = series.get(key(labels)) ?? { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
      BUCKETS.forEach((b, i) => {
        if (value <= b) h.counts[i]++;
      });
      h.sum += value;
      h.count++;
      series.set(key(labels), h);
      histograms.set(name, series);
    },
    render() {
      const lines: string[] = [];
      for (const [name, series] of counters) {
        const n = promName(name);
        lines.push(`# TYPE ${n} counter`);
        for (const [l, v] of series) lines.push(`${n}${l ? `{${l}}` : ''} ${v}`);
      }
      for (const [name, series] of histograms) {
        const n = promName(name);
        lines.push(`# TYPE ${n} histogram`);
        for (const [l, h] of series) {
          const sep = l ? `${l},` : '';
          BUCKETS.forEach((b, i) => lines.push(`${n}_bucket{${sep}le="${b}"} ${h.counts[i]}`));
          lines.push(`${n}_bucket{${sep}le="+Inf"} ${h.count}`);
          lines.push(`${n}_sum${l ? `{${l}}` : ''} ${h.sum}`);
          lines.push(`${n}_count${l ? `{${l}}` : ''} ${h.count}`);
        }
      }
      return `${lines.join('\n')}\n`;
    },
  };
}

/** Spec telemetry names use dots (`flex.node.duration_ms`); Prometheus wants underscores. */
const promName = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, '_');
const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
