import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDashboardAssets, notBuiltPage } from './dashboard-assets';

describe('loadDashboardAssets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flex-dashboard-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says how to build the dashboard when there is no bundle', () => {
    const assets = loadDashboardAssets(join(dir, 'missing'));
    expect(assets).toEqual({ built: false, reason: expect.stringMatching(/npm run build/) });
    expect(notBuiltPage('<b>&')).toContain('&#60;b&#62;&#38;');
  });

  it('holds the page and the script, styles and source maps of the bundle, nothing else', () => {
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html>');
    for (const file of ['app-A1.js', 'app-A1.js.map', 'app-B2.css', 'notes.txt'])
      writeFileSync(join(dir, 'assets', file), file);
    const assets = loadDashboardAssets(dir);
    if (!assets.built) throw new Error(assets.reason);
    expect(assets.index.toString()).toBe('<!doctype html>');
    expect([...assets.assets.keys()].sort()).toEqual(['app-A1.js', 'app-A1.js.map', 'app-B2.css']);
    expect(assets.assets.get('app-A1.js')?.contentType).toBe('text/javascript; charset=utf-8');
  });
});
