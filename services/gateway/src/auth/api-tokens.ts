import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@flex/runtime';

export const ROLES = ['client', 'operator', 'agent', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface Principal {
  /** Stable, non-secret id of a token: what runs record as their owner. */
  id: string;
  role: Role;
}

export interface ApiTokens {
  lookup(token: string): Principal | undefined;
  /** Set when no tokens were configured and one was generated (or loaded from the data dir). */
  generated?: string;
}

export const principalId = (token: string) =>
  `tok_${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;

/**
 * Parse `token:role,token:role`; fail fast on a malformed pair or an unknown role (a ConfigError:
 * a process that cannot start for it says so in one line).
 */
export function parseApiTokens(spec: string): ApiTokens {
  const byHash = new Map<string, Principal>();
  for (const pair of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const at = pair.lastIndexOf(':');
    const token = pair.slice(0, at);
    const role = pair.slice(at + 1) as Role;
    if (at <= 0 || !ROLES.includes(role))
      throw new ConfigError([
        `FLEX_API_TOKENS: "${pair.replace(token, '***')}" is not token:role with role one of ${ROLES.join(', ')}`,
      ]);
    if (token.length < 8) throw new ConfigError(['FLEX_API_TOKENS: tokens must be at least 8 characters']);
    if (/^CHANGE-ME/i.test(token))
      throw new ConfigError([
        'FLEX_API_TOKENS still holds a CHANGE-ME placeholder from the template: set real tokens',
      ]);
    byHash.set(principalId(token), { id: principalId(token), role });
  }
  if (byHash.size === 0) throw new ConfigError(['FLEX_API_TOKENS is set but names no token']);
  return { lookup: (token) => byHash.get(principalId(token)) };
}

/**
 * FLEX_API_TOKENS when set; otherwise an admin token kept in `<dataDir>/api-token` (generated on
 * first start, mode 0600) so a restart keeps working with the same token.
 */
export function resolveApiTokens(spec: string | undefined, dataDir: string): ApiTokens {
  if (spec) return parseApiTokens(spec);
  const file = join(dataDir, 'api-token');
  let token = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (!token) {
    mkdirSync(dataDir, { recursive: true });
    token = `flex_${randomBytes(24).toString('base64url')}`;
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return { ...parseApiTokens(`${token}:admin`), generated: token };
}
