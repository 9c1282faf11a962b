/**
 * How to run the `agent-tracker` command from where this package really is. Installed by OpenCode
 * (into its cache, `bin` not linked) or copied into the plugin folder, the command is not on PATH,
 * so doctor and the `agent-status` tool name the real file to run with node.
 */
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from './package-root.js';

/** The CLI's entry, relative to the package root. */
export const CLI_ENTRY = path.join('dist', 'cli', 'main.js');

/** `node /real/path/dist/cli/main.js` for the package at `root` (symlinks resolved; quoted when it has spaces). */
export function cliCommand(root: string = packageRoot()): string {
  let real = root;
  try {
    real = fs.realpathSync(root);
  } catch {
    // A root that cannot be resolved is still the best answer there is.
  }
  const entry = path.join(real, CLI_ENTRY);
  return `node ${/[\s"'$`\\]/.test(entry) ? JSON.stringify(entry) : entry}`;
}

/** One line for people and models: how to run the CLI, whether or not it is on PATH. */
export function cliHint(root: string = packageRoot()): string {
  return `agent-tracker CLI: \`${cliCommand(root)} <command>\` (or \`agent-tracker\` / \`npx opencode-agent-tracker\` where it is installed on PATH)`;
}
