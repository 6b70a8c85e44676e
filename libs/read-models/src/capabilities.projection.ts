import { typedEvent, type Projection } from '@flex/event-store';
import type { ReadModelDatabase } from './read-models.table';

/** The capabilities read model: one row per (capability, instance). */
export const capabilitiesProjection: Projection = {
  name: 'capabilities',
  // Only these (a read it shares with the runs projection may then leave out what the runs leave unread).
  handles: ['capability_registered', 'capability_status_changed', 'capability_deregistered'],
  async apply(trx, stored) {
    const db = trx.withTables<ReadModelDatabase>();
    const event = typedEvent(stored);
    if (event?.type === 'capability_registered') {
      const p = event.payload;
      await db
        .insertInto('capabilities')
        .values({
          capability_id: p.registration.capabilityId,
          instance_id: p.instanceId,
          registration: JSON.stringify(p.registration),
          status: 'active',
          registered_at: p.registeredAt,
          updated_at: event.timestamp,
        })
        .onConflict((oc) =>
          oc.columns(['capability_id', 'instance_id']).doUpdateSet({
            registration: JSON.stringify(p.registration),
            status: 'active',
            updated_at: event.timestamp,
          }),
        )
        .execute();
    } else if (event?.type === 'capability_status_changed' || event?.type === 'capability_deregistered') {
      const p = event.payload;
      const status = event.type === 'capability_deregistered' ? 'deregistered' : event.payload.status;
      let query = db
        .updateTable('capabilities')
        .set({ status, updated_at: event.timestamp })
        .where('capability_id', '=', p.capabilityId);
      if (p.instanceId) query = query.where('instance_id', '=', p.instanceId);
      await query.execute();
    }
  },
  async reset(trx) {
    await trx.withTables<ReadModelDatabase>().deleteFrom('capabilities').execute();
  },
};
