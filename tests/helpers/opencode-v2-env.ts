/**
 * Runs in-process plugin code (the version-2 adapter under the simulator) inside a sandbox: HOME, the
 * XDG folders and the database path point into it while `use` runs, and are restored after.
 */
import type { Sandbox } from './sandbox.js';

const KEYS = ['HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME', 'AGENT_TRACKER_DB_PATH', 'AGENT_TRACKER_IMPORT_HISTORY', 'AGENT_TRACKER_SKIP_SETUP'] as const;

export async function inSandboxEnv<T>(sandbox: Sandbox, dbPath: string, use: () => Promise<T>): Promise<T> {
  const saved = KEYS.map((key) => [key, process.env[key]] as const);
  for (const key of KEYS) {
    const value = key === 'AGENT_TRACKER_DB_PATH' ? dbPath : sandbox.env[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  try {
    return await use();
  } finally {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
