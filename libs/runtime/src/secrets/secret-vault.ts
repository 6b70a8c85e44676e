import type { ExtractedSecret } from '@flex/contracts';
import { loadSealedSecrets, storeSealedSecrets, type FlexDatabase } from '@flex/event-store';
import { SecretCipher } from './secret-cipher';

/** This process has no key to seal or open secrets with (distributed mode without `FLEX_SECRET_KEY`). */
export class SecretStoreUnavailableError extends Error {
  override readonly name = 'SecretStoreUnavailableError';
  readonly code = 'secrets_unavailable';
  constructor() {
    super('this Flex has no secret key (set FLEX_SECRET_KEY, the same on every service)');
  }
}

/** A reference whose value cannot be had: never stored, or sealed with another key. Not retryable. */
export class SecretUnavailableError extends Error {
  override readonly name = 'SecretUnavailableError';
  readonly code = 'secret_unavailable';
}

/**
 * The secret store: values sealed with AES-256-GCM in the `secrets` table, keyed by run and id. The
 * gateway keeps an envelope's secrets before it appends `start`; the executor's adapter reveals them
 * for the one invocation that asks, and to refuse an output that repeats one. Plaintext exists only
 * in memory, for the call that needs it.
 */
export class SecretVault {
  readonly #cipher: SecretCipher | undefined;

  constructor(
    private readonly database: Pick<FlexDatabase, 'db'>,
    key: Buffer | undefined,
  ) {
    this.#cipher = key ? new SecretCipher(key) : undefined;
  }

  /** False when nothing can be sealed or opened here (see {@link SecretStoreUnavailableError}). */
  get available(): boolean {
    return this.#cipher !== undefined;
  }

  async keep(runId: string, secrets: readonly ExtractedSecret[]): Promise<void> {
    if (secrets.length === 0) return;
    const cipher = this.#need();
    await storeSealedSecrets(
      this.database.db,
      secrets.map((s) => ({
        runId,
        secretId: s.id,
        keyId: cipher.keyId,
        sealed: cipher.seal(JSON.stringify(s.value), aad(runId, s.id)),
      })),
    );
  }

  /** The values of `ids` in the run; throws {@link SecretUnavailableError} naming any it cannot give. */
  async reveal(runId: string, ids: readonly string[]): Promise<Map<string, unknown>> {
    if (ids.length === 0) return new Map();
    const cipher = this.#need();
    const rows = await loadSealedSecrets(this.database.db, runId, ids);
    const values = new Map<string, unknown>();
    for (const row of rows) {
      if (row.keyId !== cipher.keyId)
        throw new SecretUnavailableError(
          `secret ${row.secretId} was sealed with key ${row.keyId}, not ${cipher.keyId}`,
        );
      values.set(row.secretId, JSON.parse(open(cipher, row.sealed, aad(runId, row.secretId))));
    }
    const missing = ids.filter((id) => !values.has(id));
    if (missing.length)
      throw new SecretUnavailableError(`no stored secret ${missing.join(', ')} in run ${runId}`);
    return values;
  }

  #need(): SecretCipher {
    if (!this.#cipher) throw new SecretStoreUnavailableError();
    return this.#cipher;
  }
}

const aad = (runId: string, secretId: string) => `flex-secret:${runId}:${secretId}`;

function open(cipher: SecretCipher, sealed: string, additionalData: string): string {
  try {
    return cipher.open(sealed, additionalData);
  } catch (error) {
    throw new SecretUnavailableError(`a stored secret does not open: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
