import type { Kysely } from 'kysely';
import { compressWithLz4 } from '../compression';

/** Event payloads compressed with LZ4 where the server has it (see compressWithLz4). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await compressWithLz4(db, 'events', ['payload']);
}
