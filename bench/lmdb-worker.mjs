/**
 * A worker thread that loads lmdb and opens a database (PLUGIN_COST_WORKER_DB), for addon-plugin.mjs's
 * `worker-lmdb` variant: lmdb's addon and its 16 MiB shared buffer in a heap of their own. Not a
 * benchmark itself.
 */
import { open } from 'lmdb';
import { setInterval } from 'node:timers';
import { parentPort, workerData } from 'node:worker_threads';

const root = open({ path: workerData.path });
root.putSync('opened', Date.now());
parentPort?.postMessage(root.get('opened') !== undefined ? 'ready' : 'empty');
setInterval(() => {}, 60_000);
