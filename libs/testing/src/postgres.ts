import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export interface TestDatabase {
  /** Connection URL of the new, empty database. */
  url: string;
  /** Drops the database, closing whatever connections are still open to it. */
  drop(): Promise<void>;
}

const OBJECT_IN_USE = '55006';

/**
 * Creates a uniquely named, empty database on the server named by FLEX_TEST_DATABASE_URL (the
 * throwaway one jest's globalSetup starts). One per spec file, so specs never see each other's rows.
 */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const serverUrl = process.env.FLEX_TEST_DATABASE_URL;
  if (!serverUrl) {
    throw new Error(
      'FLEX_TEST_DATABASE_URL is not set: run integration specs through jest (its globalSetup starts a ' +
        'throwaway Postgres) or set it to the URL of a Postgres server where databases may be created.',
    );
  }
  const name = databaseName(label);
  await withClient(serverUrl, (client) => createDatabase(client, name));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      withClient(serverUrl, (client) => client.query(`drop database if exists "${name}" with (force)`)).then(
        () => undefined,
      ),
  };
}

/** Lowercase, [a-z0-9_], at most 63 bytes (Postgres truncates longer identifiers). */
export function databaseName(label: string): string {
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 36);
  return `flex_${slug}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** CREATE DATABASE fails while another session is using the template: try again briefly. */
async function createDatabase(client: Client, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.query(`create database "${name}"`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== OBJECT_IN_USE || attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
