import { Kysely, Migration, MigrationResult, Migrator, sql } from 'kysely';
import { MigrationError } from './errors';
import { eventStoreMigrations } from './migrations';

const NAME_PATTERN = /^\d{10}_[a-z0-9_]+$/;
const MIGRATION_TABLE = 'kysely_migration';
const ATTEMPTS = 5;

/**
 * Brings the schema to the latest version: the store's migrations plus `extra` (read models add
 * theirs), in name order, forward only. Safe when several processes start at once (Kysely holds an
 * advisory lock while it migrates). Services register different `extra` sets, so migrations that
 * another service already applied and this one does not know are accepted as done, not as
 * corruption. Returns the names this call applied. Takes any Kysely: the migrations see no table
 * types (each takes `Kysely<unknown>`: frozen in time, it must not depend on today's tables).
 */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  extra: Record<string, Migration> = {},
): Promise<string[]> {
  const own = mergeMigrations(extra);
  for (let attempt = 1; ; attempt++) {
    const applied = await appliedMigrationNames(db);
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => withForeign(own, applied) },
      allowUnorderedMigrations: true,
    });
    const { error, results = [] } = await migrator.migrateToLatest();
    if (!error) return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
    // Another process applied a migration we do not know between our look and its lock: look again.
    if (attempt < ATTEMPTS && isMissingMigration(error)) continue;
    throw new MigrationError(`migration failed${failedName(results)}: ${describe(error)}`, { cause: error });
  }
}

export function mergeMigrations(extra: Record<string, Migration>): Record<string, Migration> {
  for (const name of Object.keys(extra)) {
    if (!NAME_PATTERN.test(name)) {
      throw new MigrationError(
        `migration name ${name} must look like 2026112201_snake_case (a 10-digit timestamp prefix)`,
      );
    }
    if (name in eventStoreMigrations)
      throw new MigrationError(`migration ${name} is already one of the event store's`);
  }
  return { ...eventStoreMigrations, ...extra };
}

function withForeign(own: Record<string, Migration>, applied: string[]): Record<string, Migration> {
  const all = { ...own };
  for (const name of applied) all[name] ??= { up: async () => undefined };
  return all;
}

async function appliedMigrationNames<DB>(db: Kysely<DB>): Promise<string[]> {
  const exists = await sql<{ found: string | null }>`select to_regclass(${MIGRATION_TABLE}) as found`.execute(
    db,
  );
  if (!exists.rows[0]?.found) return [];
  const applied = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db);
  return applied.rows.map((row) => row.name);
}

function isMissingMigration(error: unknown): boolean {
  return error instanceof Error && /previously executed migration .* is missing/.test(error.message);
}

function failedName(results: MigrationResult[]): string {
  const failed = results.find((r) => r.status === 'Error');
  return failed ? ` at ${failed.migrationName}` : '';
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
