import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type FlexConfig } from '../config';
import { generateSecretKey, parseSecretKey } from './secret-cipher';

/** Where the key lives when Flex keeps it: `none` in distributed mode without `FLEX_SECRET_KEY`. */
export type SecretKeyHome = { kind: 'data_dir'; dir: string } | { kind: 'memory' } | { kind: 'none' };

/**
 * The key that seals secrets at rest: `FLEX_SECRET_KEY` when set; otherwise, in embedded mode, one
 * generated on first start and kept in `<FLEX_DATA_DIR>/secret-key` (mode 0600, like the API token),
 * or one per process for an in-memory database. Distributed services must share one key, so there
 * Flex does not make one up: without `FLEX_SECRET_KEY` the gateway refuses envelopes with secrets.
 */
export function resolveSecretKey(config: FlexConfig, home: SecretKeyHome): Buffer | undefined {
  if (config.FLEX_SECRET_KEY) {
    const key = parseSecretKey(config.FLEX_SECRET_KEY);
    if (!key) throw new ConfigError(['FLEX_SECRET_KEY: expected 32 bytes as base64 or hex']);
    return key;
  }
  switch (home.kind) {
    case 'none':
      return undefined;
    case 'memory':
      return Buffer.from(generateSecretKey(), 'base64');
    case 'data_dir':
      return keyFile(home.dir);
  }
}

function keyFile(dir: string): Buffer {
  const file = join(dir, 'secret-key');
  if (existsSync(file)) {
    const key = parseSecretKey(readFileSync(file, 'utf8'));
    if (!key) throw new ConfigError([`${file}: expected 32 bytes as base64 or hex`]);
    return key;
  }
  mkdirSync(dir, { recursive: true });
  const text = generateSecretKey();
  writeFileSync(file, `${text}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return Buffer.from(text, 'base64');
}
