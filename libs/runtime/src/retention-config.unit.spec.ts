import { loadConfig } from './config';
import { archiveTarget, retentionSettings } from './retention-config';
import { startRetention } from './retention';
import type { ServiceRuntime } from './runtime';

const S3 = {
  FLEX_ARCHIVE_S3_ENDPOINT: 'http://127.0.0.1:9000',
  FLEX_ARCHIVE_S3_BUCKET: 'flex-archive',
  FLEX_ARCHIVE_S3_ACCESS_KEY_ID: 'id',
  FLEX_ARCHIVE_S3_SECRET_ACCESS_KEY: 'secret',
};

describe('retention settings', () => {
  it('is off unless an age is given; days or milliseconds, with an hourly cycle of 100 runs by default', () => {
    expect(retentionSettings(loadConfig({}))).toBeUndefined();
    expect(retentionSettings(loadConfig({ FLEX_RETENTION_DAYS: '30' }))).toEqual({
      ageMs: 30 * 86_400_000,
      intervalMs: 3_600_000,
      batch: 100,
    });
    const fine = { FLEX_RETENTION_AGE_MS: '0', FLEX_RETENTION_INTERVAL_MS: '500', FLEX_RETENTION_BATCH: '7' };
    expect(retentionSettings(loadConfig(fine))).toEqual({ ageMs: 0, intervalMs: 500, batch: 7 });
  });

  it.each([
    [{ FLEX_RETENTION_DAYS: '-1' }, 'FLEX_RETENTION_DAYS: expected a positive number of days'],
    [{ FLEX_RETENTION_DAYS: 'soon' }, 'FLEX_RETENTION_DAYS'],
    [{ FLEX_RETENTION_DAYS: '1', FLEX_RETENTION_AGE_MS: '5' }, 'FLEX_RETENTION_AGE_MS: give one of'],
    [{ FLEX_RETENTION_INTERVAL_MS: '10' }, 'FLEX_RETENTION_INTERVAL_MS: expected at least 100 ms'],
    [{ FLEX_ARCHIVE_S3_ENDPOINT: 'not a url' }, 'FLEX_ARCHIVE_S3_ENDPOINT'],
    [{ ...S3, FLEX_ARCHIVE_S3_BUCKET: 'Bad_Bucket' }, 'FLEX_ARCHIVE_S3_BUCKET: expected an S3 bucket name'],
    [{ ...S3, FLEX_ARCHIVE_S3_SECRET_ACCESS_KEY: '' }, 'FLEX_ARCHIVE_S3_SECRET_ACCESS_KEY is needed'],
    [
      { ...S3, FLEX_ARCHIVE_DIR: '/var/flex' },
      'FLEX_ARCHIVE_DIR: give FLEX_ARCHIVE_DIR or FLEX_ARCHIVE_S3_*',
    ],
  ])('refuses %j at start, naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('archives to S3 when configured, else the directory, else the data directory in embedded mode', () => {
    expect(archiveTarget(loadConfig(S3), 'distributed')).toMatchObject({
      kind: 's3',
      bucket: 'flex-archive',
      region: 'us-east-1',
      prefix: '',
    });
    expect(archiveTarget(loadConfig({ FLEX_ARCHIVE_DIR: '/a' }), 'distributed')).toEqual({
      kind: 'directory',
      dir: '/a',
    });
    expect(archiveTarget(loadConfig({ FLEX_DATA_DIR: '/d' }), 'embedded')).toEqual({
      kind: 'directory',
      dir: '/d/archive',
    });
    expect(archiveTarget(loadConfig({}), 'distributed')).toBeUndefined();
  });

  it('refuses to start retention in distributed mode with nowhere to archive, naming the variable', () => {
    const runtime = {
      config: loadConfig({ FLEX_RETENTION_DAYS: '7' }),
      mode: 'distributed',
    } as ServiceRuntime;
    const hooks = { summarize: async () => ({}), afterDelete: async () => undefined };
    expect(() => startRetention(runtime, hooks)).toThrow(/FLEX_ARCHIVE_DIR: retention needs/);
  });
});
