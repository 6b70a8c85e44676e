import type { EventStoreDatabase } from '@flex/event-store';
import { sql, type Kysely } from 'kysely';
import type { GaugeReading, GaugeSource } from './metrics';

interface LagRow {
  name: string;
  behind: string | number;
  age: string | number | null;
}

/**
 * Projection lag, read from the database at each collection: for every checkpoint (projections,
 * and the embedded bus's consumers), the events past it and the age in seconds of the oldest of
 * them (0 when caught up). Every process sharing the database reports the same values.
 */
export function projectionLag(db: Kysely<EventStoreDatabase>): GaugeSource {
  return async () => {
    const { rows } = await sql<LagRow>`
      select c.name,
        greatest(coalesce((select max(position) from events), 0) - c.position, 0) as behind,
        extract(epoch from now() - (
          select e.recorded_at from events e where e.position > c.position order by e.position limit 1
        )) as age
      from checkpoints c`.execute(db);
    return rows.flatMap((row): GaugeReading[] => {
      const labels = { projection: row.name };
      return [
        { family: 'projectionLagEvents', labels, value: Number(row.behind) },
        { family: 'projectionLagSeconds', labels, value: Math.max(0, Number(row.age ?? 0)) },
      ];
    });
  };
}
