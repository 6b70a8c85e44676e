import {
  archiveRun,
  decodeArchive,
  DirectoryArchiveStore,
  encodeArchive,
  findArchive,
  loadSealedSecrets,
  readArchivedChain,
  storeSealedSecrets,
  verifyChain,
  type ArchiveHooks,
} from '@flex/event-store';
import { runIdFromStreamId } from '@flex/contracts';
import { sql } from 'kysely';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { runRetentionCycle, type RetentionCycleOptions } from './retention';
import {
  appendRun,
  archiveRows,
  BACKENDS,
  DAY,
  eventCount,
  NOW,
  openFixture,
  storedChains,
  type RetentionFixture,
} from './retention.spec-helper';

describe.each(BACKENDS)('retention on %s', (kind) => {
  let t: RetentionFixture;
  let options: RetentionCycleOptions;

  beforeAll(async () => {
    t = await openFixture(kind, 'retention');
    options = {
      settings: { ageMs: 30 * DAY, batch: 1_000 },
      archives: new DirectoryArchiveStore(t.dir),
      now: NOW,
      store: t.store,
    };
  });
  afterAll(() => t.close());

  it('archives only finished runs older than the age; each archive verifies against the head kept', async () => {
    const old = await appendRun(t.store, { ageMs: 40 * DAY, ending: 'complete', steps: 3 });
    const failed = await appendRun(t.store, { ageMs: 31 * DAY, ending: 'run_failed', steps: 1 });
    const recent = await appendRun(t.store, { ageMs: 29 * DAY, ending: 'complete', steps: 2 });
    const open = await appendRun(t.store, { ageMs: 90 * DAY, steps: 2 });
    const before = await storedChains(t.store, [old, failed]);

    const report = await runRetentionCycle(t.database, options);

    const archived = report.outcomes.filter((o) => o.status === 'archived').map((o) => o.streamId);
    expect(archived.sort()).toEqual([old, failed].sort());
    expect(report.failed).toEqual([]);
    for (const streamId of [old, failed]) {
      expect(await t.store.readChain(streamId)).toEqual([]);
      expect(await t.store.readTail(streamId, 0)).toEqual([]);
      const record = await findArchive(t.database.db, streamId);
      expect(record).toMatchObject({ events: before.get(streamId)?.length, head: { streamId } });
      const events = await readArchivedChain(options.archives, record!);
      expect(events).toEqual(before.get(streamId));
      expect(verifyChain(events, record!.head)).toMatchObject({ ok: true });
    }
    expect((await t.store.readChain(recent)).length).toBe(4);
    expect((await t.store.readChain(open)).length).toBe(3);
  });

  it('deletes an archived run’s sealed secrets with its events; a run kept keeps its own', async () => {
    const archived = await appendRun(t.store, { ageMs: 40 * DAY, ending: 'complete', steps: 1 });
    const kept = await appendRun(t.store, { ageMs: 40 * DAY, steps: 1 });
    const sealed = (streamId: string) => ({
      runId: runIdFromStreamId(streamId) as string,
      secretId: 's1',
      keyId: 'k1',
      sealed: `sealed value of ${streamId}`,
    });
    await storeSealedSecrets(t.database.db, [sealed(archived), sealed(kept)]);

    const report = await runRetentionCycle(t.database, options);

    expect(report.outcomes).toContainEqual(
      expect.objectContaining({ status: 'archived', streamId: archived }),
    );
    expect(await loadSealedSecrets(t.database.db, sealed(archived).runId)).toEqual([]);
    expect(await loadSealedSecrets(t.database.db, sealed(kept).runId)).toEqual([sealed(kept)]);
  });

  it('refuses an append to an archived stream, and a delete no archive row covers', async () => {
    const archived = await appendRun(t.store, { ageMs: 60 * DAY, ending: 'run_cancelled', steps: 0 });
    const kept = await appendRun(t.store, { ageMs: 1 * DAY, ending: 'complete', steps: 0 });
    await runRetentionCycle(t.database, options);
    const late = { id: crypto.randomUUID(), type: 'log', payload: {}, metadata: { correlationId: 'x' } };
    await expect(t.store.append(archived, [late], { expectedVersion: 'any' })).rejects.toThrow(/archived/);
    await expect(sql`delete from events where stream_id = ${kept}`.execute(t.database.db)).rejects.toThrow(
      /append-only/,
    );
    expect((await t.store.readChain(kept)).length).toBe(2);
  });

  it('finds an edited archive, and one rewritten with recomputed hashes, against the kept head', async () => {
    const streamId = await appendRun(t.store, { ageMs: 50 * DAY, ending: 'complete', steps: 3 });
    await runRetentionCycle(t.database, options);
    const record = (await findArchive(t.database.db, streamId))!;
    const original = await readFile(record.location);
    const { events, head } = decodeArchive(original);
    const edited = events.map((e) => (e.version === 3 ? { ...e, payload: { step: 99 } } : e));
    await writeFile(record.location, encodeArchive(edited, head));
    const verdict = verifyChain(await readArchivedChain(options.archives, record), record.head);
    expect(verdict.firstBad).toMatchObject({ version: 3, problem: 'edited' });
    // The same edit with every hash from it on recomputed: only the head kept in Postgres shows it.
    const { chainHash } = await import('@flex/event-store');
    const rewritten = [...events.slice(0, 2)];
    for (const e of events.slice(2)) {
      const payload = e.version === 3 ? { step: 99 } : e.payload;
      const prev = rewritten[rewritten.length - 1].hash!;
      rewritten.push({ ...e, payload, prev, hash: chainHash({ ...e, payload, prev }) });
    }
    expect(verifyChain(rewritten).ok).toBe(true);
    await writeFile(record.location, encodeArchive(rewritten, { ...head, hash: rewritten[4].hash! }));
    const against = verifyChain(await readArchivedChain(options.archives, record), record.head);
    expect(against).toMatchObject({ ok: false, firstBad: { version: 5, problem: 'edited' } });
    await writeFile(record.location, original);
  });

  it('completes a run whose delete failed after its archive was written, with one archive and no loss', async () => {
    const streamId = await appendRun(t.store, { ageMs: 45 * DAY, ending: 'complete', steps: 2 });
    const before = await t.store.readChain(streamId);
    const failing: ArchiveHooks = {
      summarize: async () => ({}),
      afterDelete: async () => {
        throw new Error('killed between the write and the delete');
      },
    };
    const crashed = await runRetentionCycle(t.database, { ...options, hooks: failing });
    expect(crashed.failed).toEqual([{ streamId, error: 'killed between the write and the delete' }]);
    expect(await t.store.readChain(streamId)).toEqual(before);
    expect(await findArchive(t.database.db, streamId)).toBeUndefined();
    expect(await readdir(t.dir)).toContain(`${streamId}.ndjson.gz`);

    const next = await runRetentionCycle(t.database, options);
    expect(next.outcomes).toContainEqual(expect.objectContaining({ streamId, status: 'archived' }));
    expect((await archiveRows(t.database)).filter((r) => r.stream_id === streamId)).toHaveLength(1);
    const record = (await findArchive(t.database.db, streamId))!;
    expect(await readArchivedChain(options.archives, record)).toEqual(before);
    expect((await readdir(t.dir)).filter((f) => f.startsWith(streamId))).toEqual([`${streamId}.ndjson.gz`]);
  });

  it('never deletes a run whose archive does not read back as written', async () => {
    const streamId = await appendRun(t.store, { ageMs: 70 * DAY, ending: 'complete', steps: 1 });
    const before = await t.store.readChain(streamId);
    const lossy = new DirectoryArchiveStore(t.dir);
    const get = lossy.get.bind(lossy);
    // A store that hands back an older object (an eventually consistent bucket, a bad disk).
    lossy.get = async (location) => {
      const { events, head } = decodeArchive(await get(location));
      return encodeArchive(events.slice(0, -1), head);
    };
    await expect(archiveRun(t.database.db, streamId, { archives: lossy })).rejects.toMatchObject({
      code: 'ARCHIVE_NOT_VERIFIED',
    });
    expect(await t.store.readChain(streamId)).toEqual(before);
    expect(await findArchive(t.database.db, streamId)).toBeUndefined();
  });

  it('leaves a run whose stored chain is already broken where it is, saying why', async () => {
    const streamId = await appendRun(t.store, { ageMs: 80 * DAY, ending: 'complete', steps: 1 });
    await sql`alter table events disable trigger events_append_only`.execute(t.database.db);
    await sql`update events set payload = '{"forged":true}' where stream_id = ${streamId} and version = 2`.execute(
      t.database.db,
    );
    await sql`alter table events enable trigger events_append_only`.execute(t.database.db);
    const report = await runRetentionCycle(t.database, options);
    const outcome = report.outcomes.find((o) => o.streamId === streamId);
    expect(outcome).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(/edited at version 2/),
    });
    expect(await eventCount(t.database)).toBeGreaterThanOrEqual(3);
  });
});
