// Bundles the dashboard (src/main.tsx and the CSS it imports) into dist/: content-hashed assets
// under dist/assets/ and an index.html that names them. Run by `npm run build` (nx).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = dirname(fileURLToPath(import.meta.url));
const dist = join(root, 'dist');

/**
 * The contracts are bundled from source. Two things of theirs have no place in a browser: zod's
 * translations of its messages (English only here) and node:crypto (canonical-json's hashing,
 * which the dashboard never calls).
 */
const browserOnly = {
  name: 'browser-only',
  setup(build) {
    build.onResolve({ filter: /locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${'/'}zod${'/'}`) ? { path: 'zod-locales', namespace: 'stub' } : undefined,
    );
    build.onResolve({ filter: /^node:crypto$/ }, () => ({ path: 'node-crypto', namespace: 'stub' }));
    build.onLoad({ filter: /^zod-locales$/, namespace: 'stub' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: root,
    }));
    build.onLoad({ filter: /^node-crypto$/, namespace: 'stub' }, () => ({
      contents: "export function createHash() { throw new Error('no hashing in the dashboard'); }",
    }));
  },
};

await rm(dist, { recursive: true, force: true });
await mkdir(join(dist, 'assets'), { recursive: true });
const result = await esbuild.build({
  entryPoints: { app: join(root, 'src/main.tsx') },
  bundle: true,
  minify: true,
  sourcemap: 'linked',
  format: 'esm',
  target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
  outdir: join(dist, 'assets'),
  entryNames: '[name]-[hash]',
  tsconfig: join(root, 'tsconfig.json'),
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  plugins: [browserOnly],
  inject: [join(root, 'src/browser-shims.ts')],
});

const outputs = Object.keys(result.metafile.outputs).map((file) => relative(dist, join(process.cwd(), file)));
const script = outputs.find((f) => f.endsWith('.js'));
const style = outputs.find((f) => f.endsWith('.css'));
if (!script || !style) throw new Error(`esbuild wrote no script or style: ${outputs.join(', ')}`);

const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Flex</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/${style}">
<script type="module" src="/${script}"></script>
</head>
<body>
<div id="app"><noscript>The Flex dashboard needs JavaScript.</noscript></div>
</body>
</html>
`;
await writeFile(join(dist, 'index.html'), html);
await writeFile(
  join(dist, 'manifest.json'),
  JSON.stringify({ index: 'index.html', assets: outputs.map((f) => basename(f)) }, null, 2),
);
