import { ValueType } from '@opentelemetry/api';
import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationTemporality, DataPointType, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { FAMILIES } from './metrics-families';
import { withZeroFamilies } from './metrics-zero';

const serialize = (metrics: ResourceMetrics) =>
  new PrometheusSerializer(undefined, false, undefined, true, true).serialize(metrics);
const empty: ResourceMetrics = { resource: resourceFromAttributes({}), scopeMetrics: [] };

describe('withZeroFamilies', () => {
  it('gives a family without series one unlabelled zero series: counters 0, histograms every bucket at 0', () => {
    const text = serialize(
      withZeroFamilies(empty, [FAMILIES.runsFailed, FAMILIES.hitlWait, FAMILIES.projectionLagEvents]),
    );
    expect(text).toContain('# TYPE flex_runs_failed_total counter\nflex_runs_failed_total 0\n');
    expect(text).toContain('# TYPE flex_projection_lag_events gauge\nflex_projection_lag_events 0\n');
    expect(text).toContain('flex_hitl_wait_seconds_count 0\nflex_hitl_wait_seconds_sum 0\n');
    for (const le of [...FAMILIES.hitlWait.buckets.map(String), '+Inf'])
      expect(text).toContain(`flex_hitl_wait_seconds_bucket{le="${le}"} 0\n`);
  });

  it('leaves a family that has series as collected, and adds no zero series beside them', () => {
    const at = { startTime: [1, 0] as [number, number], endTime: [2, 0] as [number, number] };
    const collected: ResourceMetrics = {
      ...empty,
      scopeMetrics: [
        {
          scope: { name: 'flex' },
          metrics: [
            {
              descriptor: { name: 'flex_runs_failed', description: 'd', unit: '', valueType: ValueType.INT },
              aggregationTemporality: AggregationTemporality.CUMULATIVE,
              dataPointType: DataPointType.SUM,
              isMonotonic: true,
              dataPoints: [{ ...at, attributes: { reason: 'plan_rejected' }, value: 2 }],
            },
          ],
        },
      ],
    };
    const text = serialize(withZeroFamilies(collected, [FAMILIES.runsFailed]));
    expect(text.split('\n').filter((l) => l.startsWith('flex_runs_failed_total'))).toEqual([
      'flex_runs_failed_total{reason="plan_rejected"} 2',
    ]);
  });
});
