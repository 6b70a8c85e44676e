import {
  ValueType,
  type BatchObservableResult,
  type Counter,
  type Histogram,
  type Meter,
  type Observable,
  type UpDownCounter,
} from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type IMetricReader } from '@opentelemetry/sdk-metrics';
import { FAMILIES, type Family, type FamilyKey } from './metrics-families';
import type { MetricsSettings } from './metrics-config';
import { withZeroFamilies } from './metrics-zero';

/** The labels of family `K`: each of its label names, given a value. */
export type Labels<K extends FamilyKey> = Record<(typeof FAMILIES)[K]['labels'][number], string>;
type KeyOfKind<Kind> = { [K in FamilyKey]: (typeof FAMILIES)[K]['kind'] extends Kind ? K : never }[FamilyKey];
/** A series of a family of the given kind: the family and its labels, checked together. */
type SeriesOf<Kind> = { [K in KeyOfKind<Kind>]: { family: K; labels: Labels<K> } }[KeyOfKind<Kind>];

/** A counter's series (see {@link FlexMetrics.count}). */
export type Increment = SeriesOf<'counter'>;
/** A histogram's series (see {@link FlexMetrics.observe}). */
export type Measurement = SeriesOf<'histogram'>;
/** One reading of an observable gauge, taken when metrics are collected (a scrape, an OTLP export). */
export type GaugeReading = SeriesOf<'gauge'> & { value: number };

/** Reads gauges at collection time; it may query the database. */
export type GaugeSource = () => Promise<readonly GaugeReading[]>;

/**
 * The process's metrics, through the OpenTelemetry metrics API: a MeterProvider of its own (not the
 * global one, so several runtimes in one process, as tests start them, count apart), read by a
 * Prometheus exporter whose text `GET /metrics` serves, and by an OTLP/HTTP exporter when
 * configured. Every family of {@link FAMILIES} is created here at start; a family with no series
 * yet is exported as one unlabelled zero series (see withZeroFamilies), so alerts have it to watch.
 */
export class FlexMetrics {
  readonly #provider: MeterProvider;
  readonly #prometheus: PrometheusExporter;
  readonly #serializer = new PrometheusSerializer(undefined, false, undefined, false, true);
  readonly #counters = new Map<FamilyKey, Counter>();
  readonly #histograms = new Map<FamilyKey, Histogram>();
  readonly #sseClients: UpDownCounter;
  readonly #gauges = new Map<FamilyKey, Observable>();
  readonly #gaugeSources: GaugeSource[] = [];
  readonly #onCollectErrors: (errors: unknown[]) => void;

  /** `onCollectErrors`: what failed while collecting (a gauge's query); the rest is still served. */
  constructor(
    settings: MetricsSettings & { service: string; onCollectErrors?: (errors: unknown[]) => void },
  ) {
    this.#onCollectErrors = settings.onCollectErrors ?? (() => undefined);
    this.#prometheus = new PrometheusExporter({ preventServerStart: true });
    const readers: IMetricReader[] = [this.#prometheus];
    if (settings.otlp)
      readers.push(
        new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({ url: settings.otlp.url }),
          exportIntervalMillis: settings.otlp.intervalMs,
          exportTimeoutMillis: Math.min(30_000, settings.otlp.intervalMs),
        }),
      );
    this.#provider = new MeterProvider({
      // `flex` for the embedded system, `flex-<service>` for a distributed service.
      resource: resourceFromAttributes({ 'service.name': serviceName(settings.service) }),
      readers,
    });
    const meter = this.#provider.getMeter('flex');
    for (const key of Object.keys(FAMILIES) as FamilyKey[]) this.#create(meter, key, FAMILIES[key]);
    this.#sseClients = meter.createUpDownCounter(FAMILIES.sseClients.name, describe(FAMILIES.sseClients));
    this.#sseClients.add(0);
    meter.addBatchObservableCallback((result) => this.#observeGauges(result), [...this.#gauges.values()]);
  }

  count(series: Increment, by = 1): void {
    this.#counters.get(series.family)?.add(by, series.labels);
  }

  observe(series: Measurement, value: number): void {
    this.#histograms.get(series.family)?.record(value, series.labels);
  }

  /** An SSE stream opened (+1) or closed (-1). */
  sseClients(delta: 1 | -1): void {
    this.#sseClients.add(delta);
  }

  /** Read these gauges at every collection (projection lag: see metrics-lag.ts). */
  watchGauges(source: GaugeSource): void {
    this.#gaugeSources.push(source);
  }

  /** The Prometheus text of every family (text format 0.0.4). */
  async render(): Promise<string> {
    const { resourceMetrics, errors } = await this.#prometheus.collect();
    if (errors.length > 0) this.#onCollectErrors(errors);
    return this.#serializer.serialize(withZeroFamilies(resourceMetrics, Object.values(FAMILIES)));
  }

  /** Exports what is pending (OTLP) and stops the readers. */
  shutdown(): Promise<void> {
    return this.#provider.shutdown();
  }

  #create(meter: Meter, key: FamilyKey, f: Family): void {
    if (f.kind === 'counter') {
      const counter = meter.createCounter(f.name, describe(f));
      // Unlabelled counters get their zero series now (OTLP sees it too); labelled ones at render.
      if (f.labels.length === 0) counter.add(0);
      this.#counters.set(key, counter);
    } else if (f.kind === 'histogram') {
      const advice = { explicitBucketBoundaries: [...(f.buckets ?? [])] };
      this.#histograms.set(key, meter.createHistogram(f.name, { ...describe(f), advice }));
    } else if (f.kind === 'gauge') {
      this.#gauges.set(key, meter.createObservableGauge(f.name, describe(f)));
    }
  }

  async #observeGauges(result: BatchObservableResult): Promise<void> {
    for (const source of this.#gaugeSources) {
      for (const reading of await source()) {
        const gauge = this.#gauges.get(reading.family);
        if (gauge) result.observe(gauge, reading.value, reading.labels);
      }
    }
  }
}

function serviceName(service: string): string {
  return service === 'flex' ? 'flex' : `flex-${service}`;
}

function describe(f: Family): { description: string; unit: string; valueType: ValueType } {
  const whole = f.kind !== 'histogram' && f.unit !== 's';
  return { description: f.help, unit: f.unit, valueType: whole ? ValueType.INT : ValueType.DOUBLE };
}
