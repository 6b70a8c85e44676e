'use strict';
// A system under test in its own process, driven over IPC: the driver calls, the child answers.
// Its own process so that its CPU time and peak RSS are its alone.
const { fork } = require('node:child_process');

/** Driver side: fork `script` and call its handlers by name. */
function forkChild(script, env = {}) {
  const child = fork(script, [], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk.toString()).slice(-20_000);
  });
  const pending = new Map();
  let nextId = 1;
  child.on('message', (msg) => {
    const waiter = pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id);
    if (msg.ok) waiter.resolve(msg.result);
    else waiter.reject(new Error(`${script}: ${msg.error}`));
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  exited.then(({ code, signal }) => {
    for (const waiter of pending.values())
      waiter.reject(new Error(`${script} exited (${code ?? signal}) while busy:\n${stderr.slice(-3000)}`));
    pending.clear();
  });
  return {
    pid: child.pid,
    stderr: () => stderr,
    call(type, payload = {}) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, type, payload });
      });
    },
    /** Ask it to stop; kill it when it has not exited within `graceMs`. */
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      this.call('stop').catch(() => undefined);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Child side: answer the driver's calls with `handlers[type](payload)`; `stop` exits once answered. */
function serveParent(handlers) {
  process.on('message', async ({ id, type, payload }) => {
    try {
      const handler = handlers[type];
      if (!handler) throw new Error(`no handler for ${type}`);
      const result = await handler(payload);
      process.send({ id, ok: true, result });
      if (type === 'stop') setImmediate(() => process.exit(0));
    } catch (error) {
      process.send({ id, ok: false, error: String(error?.stack ?? error) });
    }
  });
  process.on('disconnect', () => process.exit(0));
}

module.exports = { forkChild, serveParent };
