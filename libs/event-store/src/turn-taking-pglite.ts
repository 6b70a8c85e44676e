import { PGlite, type Results } from '@electric-sql/pglite';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * PGlite whose statements each start on a turn of the event loop of their own.
 *
 * PGlite runs a statement synchronously on the event loop. kysely-pglite-dialect hands its single
 * connection to the next waiting query in a microtask, so under load the whole queue of statements
 * drained in one turn of the loop, and that turn could last seconds. Node accepts about one new
 * connection per turn. A client that was not connected yet waited behind all of it: in embedded
 * mode, a client retrying its 429s kept about 250 connections in the accept queue, and another
 * client's new connection waited 10 to 50 s (docs/security/fairness.md). Yielding before each
 * statement serves sockets, timers and accepts between statements; through Kysely, that is one
 * statement per turn. The cost is one setImmediate for each statement.
 */
export class TurnTakingPGlite extends PGlite {
  override async query<T>(...args: Parameters<PGlite['query']>): Promise<Results<T>> {
    await nextTurn();
    return super.query<T>(...args);
  }
}
