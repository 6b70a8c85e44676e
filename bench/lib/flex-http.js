'use strict';
// Flex over its HTTP API, as a client sees it: POST run.stream and read the SSE until the run ends.
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const TOKEN = 'bench-client-token-0001';

/**
 * The environment every Flex of the bench runs with: one client token, quiet logs, and per-token
 * limits raised so that the load (50 runs at once, 1,000 SSE readers) is measured, not refused.
 */
function flexEnv(extra = {}) {
  return {
    FLEX_API_TOKENS: `${TOKEN}:client`,
    FLEX_LOG_LEVEL: 'error',
    FLEX_LIMIT_CONNECTIONS: '20000',
    FLEX_LIMIT_CONNECTIONS_PER_TOKEN: '20000',
    FLEX_LIMIT_STREAMS_PER_TOKEN: '20000',
    FLEX_LIMIT_RUNS_PER_TOKEN: '10000',
    FLEX_LIMIT_REQUESTS_PER_SECOND: '100000',
    FLEX_LIMIT_REQUEST_BURST: '100000',
    // The SSE bench holds runs at their first agent while 1,000 readers attach.
    FLEX_AGENT_TIMEOUT_MS: '300000',
    ...extra,
  };
}

const tempDir = (label) => mkdtempSync(join(tmpdir(), `flex-bench-${label}-`));

/**
 * One run end to end; it must end with `event: complete` (anything else, run_failed or a cut stream,
 * throws). Resolves with the time to the first SSE event (the `start` frame: the run is
 * stored and acknowledged), the total time, the run id, and the whole stream when `keep`;
 * `onResponse` sees the response as soon as its headers are in (the run id is one).
 */
async function runFlex(baseUrl, body, { keep = false, onResponse } = {}) {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}/api/v1/flex/run.stream`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body,
  });
  if (!res.ok) throw new Error(`run.stream answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  onResponse?.(res);
  const decoder = new TextDecoder();
  let firstEventMs;
  let text = '';
  let tail = '';
  let last;
  for await (const chunk of res.body) {
    const part = decoder.decode(chunk, { stream: true });
    // The last line of the previous chunk joins this one: an `event:` line split between them counts.
    const lines = (tail.slice(tail.lastIndexOf('\n') + 1) + part).split('\n');
    for (const line of lines.slice(0, -1)) if (line.startsWith('event: ')) last = line.slice(7).trim();
    if (firstEventMs === undefined && last !== undefined) firstEventMs = performance.now() - t0;
    if (keep) text += part;
    tail = (tail + part).slice(-4096);
  }
  const ms = performance.now() - t0;
  if (last !== 'complete') throw new Error(`run ended with ${last ?? 'no event'}: ${tail.slice(-400)}`);
  return { ms, firstEventMs, runId: res.headers.get('x-flex-run-id'), text: keep ? text : undefined };
}

/** The data of every SSE frame named `type` in a kept stream. */
function framesOf(text, type) {
  const out = [];
  for (const block of text.split('\n\n')) {
    if (!block.includes(`event: ${type}\n`)) continue;
    const data = block.split('\n').find((line) => line.startsWith('data: '));
    if (data) out.push(JSON.parse(data.slice(6)));
  }
  return out;
}

async function capabilities(baseUrl) {
  const res = await fetch(`${baseUrl}/api/v1/flex/capabilities`, {
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  if (!res.ok) throw new Error(`capabilities answered ${res.status}`);
  return (await res.json()).capabilities ?? [];
}

/** Until exactly `ids` (and no other capability) are active in the registry. */
async function waitForCapabilities(baseUrl, ids, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let active = [];
  while (Date.now() < deadline) {
    try {
      active = (await capabilities(baseUrl))
        .filter((c) => c.status === 'active')
        .map((c) => c.registration.capabilityId);
      if (active.length === ids.length && ids.every((id) => active.includes(id))) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`capabilities never became exactly [${ids.join(', ')}]; active: [${active.join(', ')}]`);
}

module.exports = { TOKEN, flexEnv, tempDir, runFlex, framesOf, capabilities, waitForCapabilities };
