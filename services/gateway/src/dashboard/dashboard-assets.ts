import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

/** One file of the dashboard's bundle, held in memory. */
export interface DashboardAsset {
  body: Buffer;
  contentType: string;
}

/** The built dashboard (`apps/dashboard/dist`), or why there is none. */
export type DashboardAssets =
  | { built: true; index: Buffer; assets: ReadonlyMap<string, DashboardAsset> }
  | { built: false; reason: string };

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/**
 * Where `npm run build` writes the dashboard: from this file, `services/gateway/{src,dist}/dashboard`,
 * four levels up is the workspace root (the same in the container image, which keeps the layout).
 */
export const DASHBOARD_DIST = join(__dirname, '..', '..', '..', '..', 'apps', 'dashboard', 'dist');

/** Read the bundle once, at start: a few hundred kilobytes, served from memory with their hashed names. */
export function loadDashboardAssets(dir: string = DASHBOARD_DIST): DashboardAssets {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return { built: false, reason: `no ${index}: run \`npm run build\`` };
  const assets = new Map<string, DashboardAsset>();
  const assetDir = join(dir, 'assets');
  for (const name of existsSync(assetDir) ? readdirSync(assetDir) : []) {
    const contentType = TYPES[extname(name)];
    if (contentType) assets.set(name, { body: readFileSync(join(assetDir, name)), contentType });
  }
  return { built: true, index: readFileSync(index), assets };
}

/** The page served when the bundle is missing: what to do about it, not a blank screen. */
export function notBuiltPage(reason: string): string {
  const text = reason.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Flex</title></head><body>
<h1>The Flex dashboard is not built</h1><p>${text}</p><p>The API is up: see <code>/api/v1/flex/openapi.json</code>.</p>
</body></html>`;
}
