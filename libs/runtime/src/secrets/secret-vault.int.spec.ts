import { createDatabase, migrateToLatest, type FlexDatabase } from '@flex/event-store';
import { createTestDatabase, type TestDatabase } from '@flex/testing';
import { sql } from 'kysely';
import { generateSecretKey } from './secret-cipher';
import { SecretVault } from './secret-vault';

const key = () => Buffer.from(generateSecretKey(), 'base64');
const PEM = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';

describe.each<[string, () => Promise<{ database: FlexDatabase; done(): Promise<void> }>]>([
  [
    'Postgres',
    async () => {
      const test: TestDatabase = await createTestDatabase('secret_vault');
      const database = await createDatabase({ url: test.url, poolSize: 2 });
      return { database, done: async () => (await database.close(), await test.drop()) };
    },
  ],
  ['PGlite', async () => ({ database: await createDatabase({}), done: async () => undefined })],
])('SecretVault on %s', (_name, open) => {
  let database: FlexDatabase;
  let done: () => Promise<void>;
  beforeAll(async () => {
    ({ database, done } = await open());
    await migrateToLatest(database.db);
  });
  afterAll(async () => {
    await database.close();
    await done();
  });

  it('keeps values sealed (no plaintext in the table) and reveals exactly the ids asked for', async () => {
    const vault = new SecretVault(database, key());
    await vault.keep('run_a', [
      { id: 's1', path: 'inputs.credentials', value: { deployKey: PEM } },
      { id: 's2', path: 'inputs.apiToken', value: 'tok-12345' },
    ]);
    const rows = await sql<{ dump: string }>`select string_agg(s::text, '|') as dump from secrets s`.execute(
      database.db,
    );
    expect(rows.rows[0].dump).not.toContain('BEGIN PRIVATE KEY');
    expect(rows.rows[0].dump).not.toContain('tok-12345');
    expect(await vault.reveal('run_a', ['s2'])).toEqual(new Map([['s2', 'tok-12345']]));
    expect(await vault.reveal('run_a', ['s1', 's2'])).toEqual(
      new Map<string, unknown>([
        ['s1', { deployKey: PEM }],
        ['s2', 'tok-12345'],
      ]),
    );
  });

  it('keeping the same run again keeps the first values (an idempotent start)', async () => {
    const vault = new SecretVault(database, key());
    await vault.keep('run_b', [{ id: 's1', path: 'inputs.token', value: 'first' }]);
    await vault.keep('run_b', [{ id: 's1', path: 'inputs.token', value: 'second' }]);
    expect(await vault.reveal('run_b', ['s1'])).toEqual(new Map([['s1', 'first']]));
  });

  it('names what it cannot give: an unknown id, another run, another key; no key at all', async () => {
    const vault = new SecretVault(database, key());
    await vault.keep('run_c', [{ id: 's1', path: 'inputs.token', value: 'v' }]);
    await expect(vault.reveal('run_c', ['s1', 's9'])).rejects.toMatchObject({
      code: 'secret_unavailable',
      message: expect.stringContaining('s9'),
    });
    await expect(vault.reveal('run_other', ['s1'])).rejects.toMatchObject({ code: 'secret_unavailable' });
    await expect(new SecretVault(database, key()).reveal('run_c', ['s1'])).rejects.toThrow(/sealed with key/);
    const keyless = new SecretVault(database, undefined);
    expect(keyless.available).toBe(false);
    await expect(keyless.keep('run_d', [{ id: 's1', path: 'p', value: 1 }])).rejects.toMatchObject({
      code: 'secrets_unavailable',
    });
    expect(await keyless.reveal('run_d', [])).toEqual(new Map());
  });
});
