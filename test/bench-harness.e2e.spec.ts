/**
 * The benchmark harness (bench/run.js) runs end to end on its cheapest sections: it opens the
 * servers, describes the machine, prints one table with the bar, and writes its results as JSON in
 * the shape docs/BENCHMARKS.md is generated from. Figures are not checked: they live in the bench.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');

describe('npm run bench', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), 'flex-bench-spec-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the proof and planner sections and writes their results, with the bar not measured', async () => {
    const out = path.join(dir, 'results.json');
    const { stdout } = await run(
      process.execPath,
      ['bench/run.js', 'proof', 'planner', '--quick', '--no-docs', '--out', out],
      { cwd: ROOT, env: process.env, maxBuffer: 16 << 20 },
    );
    const results = JSON.parse(readFileSync(out, 'utf8'));

    expect(results.mode).toBe('quick');
    expect(Object.keys(results.sections)).toEqual(['proof', 'planner']);
    expect(results.machine).toEqual(
      expect.objectContaining({
        cores: expect.any(Number),
        node: process.version,
        postgres: expect.objectContaining({ version: expect.any(String) }),
        nats: expect.objectContaining({ version: expect.any(String) }),
      }),
    );
    expect(results.sections.proof.rows.map((r: any) => r.nodes)).toEqual([10, 100, 1000]);
    expect(results.sections.planner.rows.map((r: any) => r.capabilities)).toEqual([10, 100, 1000]);
    for (const row of [...results.sections.proof.rows, ...results.sections.planner.rows])
      expect(row.medianMs).toBeGreaterThan(0);
    expect(results.bar).toHaveLength(10);
    expect(results.bar.every((b: any) => b.status === 'n/a')).toBe(true);
    expect(stdout).toMatch(/^section \| measurement/m);
    expect(stdout).toMatch(/^bar +\| Append rate ≥ 50 % of a raw 100-row batch insert +\| n\/a/m);
  });

  it('refuses a section it does not have, naming the ones it has', async () => {
    await expect(run(process.execPath, ['bench/run.js', 'nope'], { cwd: ROOT })).rejects.toMatchObject({
      stderr: expect.stringContaining('sections: compare, sse, growth, store, proof, planner, telemetry'),
    });
  });
});
