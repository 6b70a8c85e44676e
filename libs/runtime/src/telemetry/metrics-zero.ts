import { ValueType, type HrTime } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  type MetricData,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import type { Family } from './metrics-families';

/**
 * OpenTelemetry exports no series for an instrument nothing was recorded on (a histogram cannot be
 * given a zero point through the API, a labelled counter has no label values yet). Each family with
 * no series in `collected` is given one unlabelled zero series here, so a scrape before first use
 * shows every family (a histogram: every bucket, sum and count at 0). Families with series are left
 * as collected.
 */
export function withZeroFamilies(collected: ResourceMetrics, families: readonly Family[]): ResourceMetrics {
  const present = new Set(
    collected.scopeMetrics.flatMap((s) => s.metrics.filter((m) => m.dataPoints.length > 0)),
  );
  const seen = new Set([...present].map((m) => m.descriptor.name));
  const now: HrTime = [Math.floor(Date.now() / 1000), 0];
  const zeros = families.filter((f) => !seen.has(f.name)).map((f) => zeroMetric(f, now));
  const scopes = collected.scopeMetrics.map((s) => ({
    ...s,
    metrics: s.metrics.filter((m) => present.has(m)),
  }));
  const [first, ...rest] = scopes;
  const scope = first ?? { scope: { name: 'flex' }, metrics: [] };
  return { ...collected, scopeMetrics: [{ ...scope, metrics: [...scope.metrics, ...zeros] }, ...rest] };
}

function zeroMetric(f: Family, time: HrTime): MetricData {
  const descriptor = { name: f.name, description: f.help, unit: f.unit, valueType: ValueType.DOUBLE };
  const at = { startTime: time, endTime: time, attributes: {} };
  const aggregationTemporality = AggregationTemporality.CUMULATIVE;
  if (f.kind === 'histogram') {
    const boundaries = [...(f.buckets ?? [])];
    const buckets = { boundaries, counts: [...boundaries, Infinity].map(() => 0) };
    return {
      descriptor,
      aggregationTemporality,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints: [{ ...at, value: { buckets, sum: 0, count: 0 } }],
    };
  }
  if (f.kind === 'gauge')
    return {
      descriptor,
      aggregationTemporality,
      dataPointType: DataPointType.GAUGE,
      dataPoints: [{ ...at, value: 0 }],
    };
  return {
    descriptor,
    aggregationTemporality,
    dataPointType: DataPointType.SUM,
    isMonotonic: f.kind === 'counter',
    dataPoints: [{ ...at, value: 0 }],
  };
}
