import fc from 'fast-check';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../config';
import { generateSecretKey, parseSecretKey, SecretCipher } from './secret-cipher';
import { resolveSecretKey } from './secret-key';

const key = () => Buffer.from(generateSecretKey(), 'base64');

describe('SecretCipher (AES-256-GCM)', () => {
  it('opens what it sealed, for any text, and the sealed form never holds the text', () => {
    const cipher = new SecretCipher(key());
    fc.assert(
      fc.property(fc.string({ minLength: 4, unit: 'grapheme' }), fc.string(), (text, where) => {
        const sealed = cipher.seal(text, where);
        expect(sealed).not.toContain(text);
        expect(cipher.open(sealed, where)).toBe(text);
      }),
    );
  });

  it('refuses another key, another place (run, id), and any tampered byte', () => {
    const cipher = new SecretCipher(key());
    const sealed = cipher.seal('-----BEGIN PRIVATE KEY-----', 'flex-secret:run_a:s1');
    expect(() => new SecretCipher(key()).open(sealed, 'flex-secret:run_a:s1')).toThrow(
      expect.objectContaining({ code: 'secret_unreadable' }),
    );
    expect(() => cipher.open(sealed, 'flex-secret:run_b:s1')).toThrow(/does not open/);
    const parts = sealed.split('.');
    for (let part = 1; part < 4; part++) {
      const bytes = Buffer.from(parts[part], 'base64url');
      bytes[0] ^= 1;
      const tampered = parts.map((p, i) => (i === part ? bytes.toString('base64url') : p)).join('.');
      expect(() => cipher.open(tampered, 'flex-secret:run_a:s1')).toThrow(/does not open/);
    }
    expect(() => cipher.open('v2.a.b.c', 'x')).toThrow(/known version/);
  });

  it('seals the same text differently each time (a fresh IV), under a stable key id', () => {
    const k = key();
    const a = new SecretCipher(k);
    expect(a.seal('same', 'x')).not.toBe(a.seal('same', 'x'));
    expect(new SecretCipher(k).keyId).toBe(a.keyId);
    expect(new SecretCipher(key()).keyId).not.toBe(a.keyId);
    expect(a.keyId).not.toContain(k.toString('hex').slice(0, 8));
  });
});

describe('the secret key', () => {
  it('FLEX_SECRET_KEY is 32 bytes as base64 or hex; anything else fails fast without echoing it', () => {
    const k = key();
    expect(parseSecretKey(k.toString('base64'))?.equals(k)).toBe(true);
    expect(parseSecretKey(k.toString('hex'))?.equals(k)).toBe(true);
    for (const bad of ['short', k.subarray(0, 31).toString('base64'), `${k.toString('hex')}00`])
      expect(parseSecretKey(bad)).toBeUndefined();
    const attempt = () => loadConfig({ FLEX_SECRET_KEY: 'not-a-key-hunter2' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/FLEX_SECRET_KEY: expected 32 bytes/);
    expect(attempt).not.toThrow(/hunter2/);
  });

  it('FLEX_SECRET_KEY_PATTERN must compile', () => {
    expect(() => loadConfig({ FLEX_SECRET_KEY_PATTERN: '(' })).toThrow(/FLEX_SECRET_KEY_PATTERN/);
    expect(loadConfig({}).FLEX_SECRET_KEY_PATTERN).toMatch(/password/);
  });

  it('embedded: generated once into <data dir>/secret-key (0600) and read back on the next start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'flex-key-'));
    const config = loadConfig({ FLEX_DATA_DIR: dir });
    const first = resolveSecretKey(config, { kind: 'data_dir', dir });
    expect(first).toHaveLength(32);
    expect(statSync(join(dir, 'secret-key')).mode & 0o777).toBe(0o600);
    expect(resolveSecretKey(config, { kind: 'data_dir', dir })?.equals(first as Buffer)).toBe(true);
    writeFileSync(join(dir, 'secret-key'), 'garbage\n');
    expect(() => resolveSecretKey(config, { kind: 'data_dir', dir })).toThrow(
      /secret-key: expected 32 bytes/,
    );
    expect(readFileSync(join(dir, 'secret-key'), 'utf8')).toBe('garbage\n');
  });

  it('FLEX_SECRET_KEY wins; distributed has none without it; in memory, one per process', () => {
    const k = key();
    const withKey = loadConfig({ FLEX_SECRET_KEY: k.toString('base64') });
    expect(resolveSecretKey(withKey, { kind: 'none' })?.equals(k)).toBe(true);
    expect(resolveSecretKey(loadConfig({}), { kind: 'none' })).toBeUndefined();
    const a = resolveSecretKey(loadConfig({}), { kind: 'memory' });
    expect(a).toHaveLength(32);
    expect(resolveSecretKey(loadConfig({}), { kind: 'memory' })?.equals(a as Buffer)).toBe(false);
  });
});
