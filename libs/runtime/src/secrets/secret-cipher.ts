import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** 32 bytes, written as base64 (44 characters) or hex (64): what `FLEX_SECRET_KEY` holds. */
export function parseSecretKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed, 'base64');
  return key.length === 32 &&
    (key.toString('base64') === trimmed || key.toString('hex') === trimmed.toLowerCase())
    ? key
    : undefined;
}

/** A new random key, as `FLEX_SECRET_KEY` would hold it (base64). */
export function generateSecretKey(): string {
  return randomBytes(32).toString('base64');
}

/** A sealed value that cannot be opened: another key, or tampered with. Never retryable. */
export class SecretUnreadableError extends Error {
  override readonly name = 'SecretUnreadableError';
  readonly code = 'secret_unreadable';
}

/**
 * AES-256-GCM with a random 96-bit IV per value. The additional data binds a sealed value to where it
 * belongs (run and id), so a row copied onto another run's secret does not open.
 */
export class SecretCipher {
  /** A fingerprint of the key, stored beside each value: says which key sealed it, not the key. */
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new RangeError('a secret key is 32 bytes');
    const fingerprint = createHash('sha256').update('flex-secret-key-id:').update(key).digest('hex');
    this.keyId = `k_${fingerprint.slice(0, 16)}`;
  }

  seal(plaintext: string, additionalData: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(additionalData, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  open(sealed: string, additionalData: string): string {
    const [version, iv, tag, body, ...rest] = sealed.split('.');
    if (version !== VERSION || rest.length > 0 || iv === undefined || tag === undefined || body === undefined)
      throw new SecretUnreadableError('not a sealed secret of a known version');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(additionalData, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch (error) {
      throw new SecretUnreadableError('the sealed secret does not open with this key', { cause: error });
    }
  }
}
