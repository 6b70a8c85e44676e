import 'reflect-metadata';
import { loadConfig, runProcess, type RunningProcess } from '@flex/runtime';
import { startEmbedded, type EmbeddedFlex } from './embedded';

/** How long `npm start` waits before saying what it is still waiting for. */
const PATIENCE_MS = 15_000;

/**
 * `npm start`: everything in one process, data under FLEX_DATA_DIR (default .flex/). The URL and the
 * token are printed once Flex is ready (GET /readyz): a run started then finds its agents.
 */
async function main(): Promise<RunningProcess> {
  const config = loadConfig();
  const flex = await startEmbedded({ config, waitUntilReady: false });
  try {
    await ready(flex);
  } catch (error) {
    await flex.close();
    throw error;
  }
  const lines = [
    `Flex is ready (embedded mode) at ${flex.url}`,
    `  data:   ${config.FLEX_DATA_DIR}`,
    flex.tokens.generated
      ? `  token:  ${flex.tokens.generated}   (admin; saved in ${config.FLEX_DATA_DIR}/api-token)`
      : '  tokens: from FLEX_API_TOKENS',
    `  try:    curl -N -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d @examples/envelope.json ${flex.url}/api/v1/flex/run.stream`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return { stop: () => flex.close(), graceMs: config.FLEX_SHUTDOWN_GRACE_MS };
}

/** Until every startup step is done; past PATIENCE_MS, say on stderr which ones are not. */
async function ready(flex: EmbeddedFlex): Promise<void> {
  const timer = setTimeout(() => {
    void flex.runtime.readiness.report().then((report) => {
      const waiting = Object.entries(report.checks)
        .filter(([, check]) => !check.ok)
        .map(([name, check]) => `${name} (${check.detail ?? 'not yet'})`);
      process.stderr.write(`flex: still starting; waiting for ${waiting.join(', ')}\n`);
    });
  }, PATIENCE_MS);
  try {
    await flex.runtime.readiness.whenStarted();
  } finally {
    clearTimeout(timer);
  }
}

runProcess(main);
