#!/usr/bin/env node
'use strict';
const path = require('node:path');
const cli = path.join(__dirname, '..', 'apps', 'flex', 'dist', 'cli', 'main.js');
let main;
try {
  ({ main } = require(cli));
} catch (error) {
  if (error.code === 'MODULE_NOT_FOUND' && String(error.message).includes(cli)) {
    process.stderr.write('flex: not built yet — run `npm run build` first\n');
    process.exit(1);
  }
  throw error;
}
// main reports its own errors and answers the exit code (docs/cli.md).
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`flex: ${error && error.stack}\n`);
    process.exit(1);
  },
);
