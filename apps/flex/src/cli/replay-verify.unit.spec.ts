import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT } from './exit-codes';
import { main } from './main';

/** `flex replay --verify --file`: offline, on a corpus run (test/replay-corpus), no server, no token. */
describe('flex replay --verify --file <export.ndjson>', () => {
  const corpus = join(__dirname, '../../../../test/replay-corpus/hitl-approve.ndjson');
  const dir = mkdtempSync(join(tmpdir(), 'flex-replay-'));
  const lines = readFileSync(corpus, 'utf8').trim().split('\n');
  const runId = (JSON.parse(lines[0]) as { streamId: string }).streamId.replace(/^run-/, '');

  async function flex(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((c) => out.push(String(c)) > 0);
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((c) => err.push(String(c)) > 0);
    const noToken = () => {
      throw new Error('the offline replay asked for a server');
    };
    try {
      return { code: await main(argv, noToken), stdout: out.join(''), stderr: err.join('') };
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
  }

  function file(name: string, edit: (events: Record<string, any>[]) => void = () => {}): string {
    const events = lines.map((l) => JSON.parse(l) as Record<string, any>);
    edit(events);
    const path = join(dir, name);
    writeFileSync(path, events.map((e) => JSON.stringify(e)).join('\n'));
    return path;
  }

  it('a run re-decided the same: exit 0, and --json says how many events agree', async () => {
    const result = await flex('replay', runId, '--verify', '--file', corpus, '--json');
    expect(result.code).toBe(EXIT.ok);
    const doc = JSON.parse(result.stdout);
    expect(doc).toMatchObject({ runId, ok: true, replay: { verified: lines.length - 1, open: false } });
    expect((await flex('replay', '--verify', '--file', corpus)).stderr).toMatch(
      /^re-decided: ok \(\d+ of \d+ events\)/,
    );
  });

  it('an edited decision: exit 9, naming the event, the field, both values and the component', async () => {
    const edited = file('edited.ndjson', (events) => {
      const fired = events.find((e) => e.type === 'policy_triggered') as Record<string, any>;
      fired.payload.decision.severity = 'soft';
    });
    const result = await flex('replay', '--verify', '--file', edited, '--json');
    expect(result.code).toBe(EXIT.verifyFailed);
    expect(JSON.parse(result.stdout)).toMatchObject({
      ok: false,
      replay: {
        divergence: {
          kind: 'changed',
          type: 'policy_triggered',
          path: '/payload/decision/severity',
          recorded: 'soft',
          now: 'hard',
          component: 'executor (policy engine)',
        },
      },
    });
    const text = await flex('replay', '--verify', '--file', edited);
    expect(text.code).toBe(EXIT.verifyFailed);
    expect(text.stderr).toContain('field /payload/decision/severity: recorded "soft", now "hard"');
    expect(text.stderr).toMatch(
      /changed at event at position \d+ \(version \d+, policy_triggered\), decided by executor \(policy engine\)/,
    );
  });

  it('bad input is exit 2 naming what is wrong, and decides nothing', async () => {
    const gap = file('gap.ndjson', (events) => events.splice(3, 1));
    expect(await flex('replay', '--verify', '--file', gap)).toMatchObject({
      code: EXIT.usage,
      stderr: expect.stringMatching(/line 4 \/version: expected 4/),
    });
    const headless = file('headless.ndjson', (events) => events.pop());
    expect(await flex('replay', '--verify', '--file', headless)).toMatchObject({
      code: EXIT.usage,
      stderr: expect.stringContaining('the last line must be {"head": …}'),
    });
    expect(await flex('replay', 'run_other', '--verify', '--file', corpus)).toMatchObject({
      code: EXIT.usage,
      stderr: expect.stringContaining(`not run run_other`),
    });
    expect(await flex('replay', '--file', corpus)).toMatchObject({
      code: EXIT.usage,
      stderr: expect.stringContaining('--file is read by --verify'),
    });
    expect(await flex('replay', '--verify', '--file', join(dir, 'absent.ndjson'))).toMatchObject({
      code: EXIT.usage,
      stderr: expect.stringContaining('cannot read'),
    });
  });
});
