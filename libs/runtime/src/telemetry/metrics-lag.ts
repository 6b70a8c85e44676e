import type { EventStoreDatabase } from '@flex/event-store';
import { sql, type Kysely } from 'kysely';
import type { GaugeReading, GaugeSource } from './metrics';

interface LagRow {
  name: string;
  behind: string | number;
  age: string | number | null;
}

/** Events past a checkpoint are counted up to this many (one scrape stays cheap however far behind). */
const COUNT_CAP = 100_000;

/**
 * Projection lag, read from the database at each collection: for every checkpoint (projections,
 * and the embedded bus's consumers), the committed events past it and the age in seconds of the
 * first of them (0 when caught up). "Past" is in the order tailers read, (transaction id, position),
 * not by position alone: an event with a lower transaction id and a higher position can be applied
 * before the checkpoint's own, and a caught-up projection must read 0. The count stops at COUNT_CAP.
 * Every process sharing the database reports the same values.
 */
export function projectionLag(db: Kysely<EventStoreDatabase>): GaugeSource {
  return async () => {
    const { rows } = await sql<LagRow>`
      select c.name,
        (select count(*) from (
          select 1 from events e where (e.transaction_id, e.position) > (c.transaction_id, c.position)
          limit ${COUNT_CAP}
        ) past) as behind,
        extract(epoch from now() - (
          select e.recorded_at from events e
          where (e.transaction_id, e.position) > (c.transaction_id, c.position)
          order by e.transaction_id, e.position limit 1
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
