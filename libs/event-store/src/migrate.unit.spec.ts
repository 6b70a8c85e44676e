import { mergeMigrations } from './migrate';
import { eventStoreMigrations } from './migrations';

describe('mergeMigrations', () => {
  const noop = { up: async () => undefined };

  it("puts extra migrations beside the store's own", () => {
    const merged = mergeMigrations({ '2026112210_read_models': noop });
    expect(Object.keys(merged).sort()).toEqual(
      [...Object.keys(eventStoreMigrations), '2026112210_read_models'].sort(),
    );
  });

  it.each(['runs', '20261122_runs', '2026112210-runs', '2026112210_Runs'])('refuses the name %s', (name) => {
    expect(() => mergeMigrations({ [name]: noop })).toThrow(
      expect.objectContaining({ code: 'MIGRATION_FAILED' }),
    );
  });

  it("refuses to shadow one of the store's migrations", () => {
    expect(() => mergeMigrations({ '2026112201_events': noop })).toThrow(/already one of the event store's/);
  });

  it('names its own migrations in the timestamped style, in order', () => {
    const names = Object.keys(eventStoreMigrations);
    expect(names).toEqual([...names].sort());
    for (const name of names) expect(name).toMatch(/^\d{10}_[a-z0-9_]+$/);
  });
});
