/**
 * The plugin's surface and nothing behind it: the built plugin's own hooks and tools, as its `server()`
 * returns them, with every hook a function that does nothing and every tool's `execute` answering an
 * empty string. What OpenCode's own handling of that surface costs a run (its dispatch of the hooks,
 * its listing of the tools' schemas at every model request) is the floor under what any plugin
 * offering these hooks and tools can cost (plugin-cost-variants.ts, variant `shell`). The plugin's
 * start checks are off (AGENT_TRACKER_SKIP_SETUP=1, AGENT_TRACKER_IMPORT_HISTORY=0), so its `server()`
 * opens and starts nothing. Not a benchmark itself.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PLUGIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'opencode', 'plugin.js');

async function server(input, options) {
  const { default: plugin } = await import(pathToFileURL(PLUGIN).href);
  const hooks = await plugin.server(input, options);
  const shell = {};
  for (const [name, value] of Object.entries(hooks)) {
    if (name === 'tool') shell.tool = Object.fromEntries(Object.entries(value).map(([tool, definition]) => [tool, { ...definition, execute: async () => '' }]));
    else if (typeof value === 'function') shell[name] = async () => undefined;
  }
  return shell;
}

export default { id: 'shell', server };
