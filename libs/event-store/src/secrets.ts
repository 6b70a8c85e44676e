import type { Executor } from './read';

/** One secret value as the store keeps it: sealed by the caller (the store never sees plaintext). */
export interface SealedSecret {
  runId: string;
  secretId: string;
  /** Which key sealed it (a fingerprint, not the key). */
  keyId: string;
  sealed: string;
}

/**
 * Stores a run's sealed secrets. A row already stored for (run, id) is kept: the same run started
 * again with the same idempotency key extracts the same ids, and its first values are the run's.
 */
export async function storeSealedSecrets(db: Executor, secrets: readonly SealedSecret[]): Promise<void> {
  if (secrets.length === 0) return;
  await db
    .insertInto('secrets')
    .values(
      secrets.map((s) => ({ run_id: s.runId, secret_id: s.secretId, key_id: s.keyId, sealed: s.sealed })),
    )
    .onConflict((oc) => oc.columns(['run_id', 'secret_id']).doNothing())
    .execute();
}

/** The run's sealed secrets with these ids (all of the run's when `ids` is absent). */
export async function loadSealedSecrets(
  db: Executor,
  runId: string,
  ids?: readonly string[],
): Promise<SealedSecret[]> {
  if (ids?.length === 0) return [];
  let query = db
    .selectFrom('secrets')
    .select(['run_id', 'secret_id', 'key_id', 'sealed'])
    .where('run_id', '=', runId);
  if (ids) query = query.where('secret_id', 'in', [...ids]);
  const rows = await query.orderBy('secret_id').execute();
  return rows.map((r) => ({ runId: r.run_id, secretId: r.secret_id, keyId: r.key_id, sealed: r.sealed }));
}
