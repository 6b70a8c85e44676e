import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FlexClient,
  freePort,
  startNodeProcess,
  waitFor,
  waitForHttp,
  type ManagedProcess,
} from '@flex/testing';
import { sampleEnvelope } from './sample-run';

const ROOT = join(__dirname, '..');
const MAIN = join(ROOT, 'apps/flex/dist/embedded/main.js');
const RUNS = 6;

/**
 * Kill the embedded process (SIGKILL) while runs are in flight, start it again on the same data
 * directory, and every run still ends — each in exactly one terminal event, no node completed twice.
 */
describe('embedded mode survives a kill mid-run', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'flex-crash-'));
  let proc: ManagedProcess | undefined;
  let port: number;
  const env = () => ({
    PORT: String(port),
    FLEX_DATA_DIR: dataDir,
    FLEX_API_TOKENS: 'crash-client-token:client',
    FLEX_LOG_LEVEL: 'error',
  });
  const client = () => new FlexClient(`http://127.0.0.1:${port}`, 'crash-client-token');

  beforeAll(async () => {
    port = await freePort();
    proc = startNodeProcess('flex', MAIN, env(), ROOT);
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000, () => proc!.output());
  }, 90_000);

  afterAll(async () => {
    await proc?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes every run after the restart', async () => {
    const runIds = await Promise.all(
      Array.from({ length: RUNS }, async () => {
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/flex/run.stream`, {
          method: 'POST',
          headers: client().headers(),
          body: JSON.stringify(sampleEnvelope()),
        });
        expect(res.status).toBe(200);
        res.body?.cancel().catch(() => undefined);
        return res.headers.get('x-flex-run-id') as string;
      }),
    );
    await proc!.kill('SIGKILL');
    proc = startNodeProcess('flex', MAIN, env(), ROOT);
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000, () => proc!.output());
    for (const runId of runIds) {
      const frames = await waitFor(
        async () => {
          const events = await client().events(runId);
          return events.some((f) => f.type === 'complete' || f.type === 'run_failed') ? events : undefined;
        },
        60_000,
        () => proc!.output(),
      );
      expect(
        frames.filter((f) => f.type === 'complete' || f.type === 'run_failed').map((f) => f.type),
      ).toEqual(['complete']);
      const completed = frames
        .filter((f) => f.type === 'node_complete')
        .map((f) => `${f.planVersion}:${f.nodeId}`);
      expect(new Set(completed).size).toBe(completed.length);
    }
  }, 150_000);
});
