import type { Migration } from 'kysely';
import * as events from './2026112201_events';
import * as idempotencyKeys from './2026112202_idempotency_keys';
import * as outbox from './2026112203_outbox';
import * as checkpoints from './2026112204_checkpoints';
import * as deadLetters from './2026112205_dead_letters';
import * as secrets from './2026121204_secrets';
import * as eventChain from './2026121701_event_chain';
import * as runArchives from './2026122001_run_archives';
import * as appendFunction from './2026122501_append_function';
import * as appendSteps from './2026122601_append_steps';
import * as lz4Payloads from './2026122602_lz4_payloads';
import * as appendManySets from './2026122701_append_many_sets';
import * as archivedCheckPerStatement from './2026122702_archived_check_per_statement';
import * as appendGenericPlans from './2026123001_append_generic_plans';
import * as eventsHorizon from './2026123101_events_horizon';
import * as outboxWithoutRowLock from './2026123201_outbox_without_row_lock';

/** The store's own migrations, forward only: a released one is never edited, a change is a new one. */
export const eventStoreMigrations: Readonly<Record<string, Migration>> = Object.freeze({
  '2026112201_events': events,
  '2026112202_idempotency_keys': idempotencyKeys,
  '2026112203_outbox': outbox,
  '2026112204_checkpoints': checkpoints,
  '2026112205_dead_letters': deadLetters,
  '2026121204_secrets': secrets,
  '2026121701_event_chain': eventChain,
  '2026122001_run_archives': runArchives,
  '2026122501_append_function': appendFunction,
  '2026122601_append_steps': appendSteps,
  '2026122602_lz4_payloads': lz4Payloads,
  '2026122701_append_many_sets': appendManySets,
  '2026122702_archived_check_per_statement': archivedCheckPerStatement,
  '2026123001_append_generic_plans': appendGenericPlans,
  '2026123101_events_horizon': eventsHorizon,
  '2026123201_outbox_without_row_lock': outboxWithoutRowLock,
});
