import { sql, type Kysely } from 'kysely';

/**
 * Has the columns' large values compressed with LZ4 instead of Postgres's default, pglz, where the
 * server was built with it (Debian's and the official images are; PGlite is not, and keeps pglz).
 * Only values written from now on are compressed so; what is stored stays readable either way.
 * Appending a 17 KB plan event cost 0.75-1.13 ms with pglz and 0.55-0.64 ms with LZ4 (local
 * Postgres 15, groups of 20), and inserting a rebuild's plan versions 221 -> 140 ms.
 */
export async function compressWithLz4(db: Kysely<unknown>, table: string, columns: readonly string[]) {
  if (!(await offersLz4(db))) return;
  for (const column of columns)
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} set compression lz4`.execute(
      db,
    );
}

/** The server can compress with LZ4 (it was built with it). */
export async function offersLz4(db: Kysely<unknown>): Promise<boolean> {
  const { rows } = await sql<{ lz4: boolean }>`
    select coalesce(bool_or('lz4' = any(enumvals)), false) as lz4
    from pg_settings where name = 'default_toast_compression'`.execute(db);
  return rows[0]?.lz4 ?? false;
}
