'use strict';
// The thread that owns the embedded PGlite (PGliteWorkerClient, pglite-worker-client.ts, is the other
// end): it runs the statements it is sent one at a time, in the order sent, and posts back each result
// or error. Plain JavaScript, so that a Worker loads it as it is: from src/ under jest, from dist/ built.
const { parentPort, workerData } = require('node:worker_threads');
const { openPGlite } = require('./pglite-seed.js');

let pglite;
let queue = openPGlite(workerData).then(
  (opened) => {
    pglite = opened.pglite;
    // The probe, an empty object, tells the client which realm the objects it receives are of.
    parentPort.postMessage({ ready: true, probe: {}, startedFrom: opened.startedFrom });
  },
  (error) => parentPort.postMessage({ ready: false, error: plainError(error) }),
);
parentPort.on('message', (message) => {
  queue = queue.then(() => (message.close ? close(message.id) : run(message)));
});

async function run({ id, sql, params }) {
  try {
    const { rows, affectedRows, fields } = await pglite.query(sql, params);
    parentPort.postMessage({ id, result: { rows, affectedRows, fields } });
  } catch (error) {
    parentPort.postMessage({ id, error: plainError(error) });
  }
}

async function close(id) {
  try {
    await pglite.close();
    parentPort.postMessage({ id, result: null });
  } catch (error) {
    parentPort.postMessage({ id, error: plainError(error) });
  }
}

/**
 * An error as data that survives the structured clone: a clone of an Error keeps its message and
 * stack only, and callers read the SQLSTATE `code`, `detail`, `constraint` and the other fields
 * PGlite's DatabaseError carries.
 */
function plainError(error) {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  }
  return { name: error.name, message: error.message, stack: error.stack, fields };
}
