import { exportedName, FAMILIES } from '@flex/runtime';
import { startScrapedService, type ScrapedService } from './scraped-service';

const PROMETHEUS_TYPE = {
  counter: 'counter',
  histogram: 'histogram',
  gauge: 'gauge',
  updown: 'gauge',
} as const;

/**
 * Every metric family is on `GET /metrics` of a freshly started service, before anything happened:
 * alerts on rare events (a dead letter, a failed run) have a series to watch from the start.
 * Distributed gateway and executor, each on real Postgres and NATS.
 */
describe.each(['gateway', 'executor'] as const)('/metrics of a freshly started %s', (service) => {
  let started: ScrapedService;

  beforeAll(async () => {
    started = await startScrapedService(service, `metrics-families-${service}`);
  }, 60_000);
  afterAll(() => started?.close());

  it('shows every family with its type, zero-valued', async () => {
    const { parsed, text } = await started.scrape();
    for (const family of Object.values(FAMILIES)) {
      const name = exportedName(family);
      expect({ name, type: parsed.types.get(name) }).toEqual({ name, type: PROMETHEUS_TYPE[family.kind] });
      const own = parsed.samples.filter((s) => s.name === name || s.name.startsWith(`${name}_`));
      expect({ name, samples: own.length > 0 }).toEqual({ name, samples: true });
      if (family.kind !== 'gauge')
        expect({ name, values: own.map((s) => s.value) }).toEqual({ name, values: own.map(() => 0) });
    }
    // Nothing but the declared families (and the resource's target_info).
    const declared = new Set(Object.values(FAMILIES).map(exportedName));
    expect([...parsed.types.keys()].filter((n) => !declared.has(n))).toEqual(['target_info']);
    expect(text).toContain(`service_name="flex-${service}"`);
  });

  it('keeps serving the same families scrape after scrape', async () => {
    const first = await started.scrape();
    const second = await started.scrape();
    expect([...second.parsed.types.keys()].sort()).toEqual([...first.parsed.types.keys()].sort());
  });
});
