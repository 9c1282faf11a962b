/**
 * The floor of plugin start for our choices: a plugin that does nothing but open the same lmdb
 * database the tracker opens (same options, its named tables) and read the schema version. The
 * start benchmark measures it beside the real plugin, in the same harness and the same runs.
 * Not a benchmark itself (the runner only picks up `*.bench.mjs`).
 */
import { open } from 'lmdb';

const TABLES = ['agents', 'sessions', 'commits', 'communication', 'retrospectives', 'activities', 'projects', 'migrations', 'userGrades', 'events', 'terms', 'meta'];

async function server() {
  const root = open({ path: process.env.AGENT_TRACKER_DB_PATH, mapSize: 512 * 1024 * 1024, maxDbs: 16, compression: true });
  const tables = Object.fromEntries(TABLES.map((name) => [name, root.openDB({ name, compression: name !== 'terms' })]));
  if (tables.meta.get('schemaVersion') === undefined) throw new Error('the floor plugin expects the database the tracker created');
  return {
    dispose: async () => {
      await root.close();
    },
  };
}

export default { id: 'start-floor', server };
