/**
 * Reading the user's global OpenCode config (`opencode.json` or `opencode.jsonc`) with
 * jsonc-parser, as OpenCode itself does: comments and trailing commas are allowed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, printParseErrorCode } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';

export const PLUGIN_NAME = 'agent-tracker';
const CONFIG_FILE_NAMES = ['opencode.jsonc', 'opencode.json'] as const;

/** The config file in use in a config folder (`.jsonc` first, as OpenCode reads it), if any. */
export function findConfigFile(configDir: string): string | undefined {
  for (const name of CONFIG_FILE_NAMES) {
    const file = path.join(configDir, name);
    if (fs.existsSync(file)) return file;
  }
  return undefined;
}

/** Parses JSONC text; throws with the first error's position when it does not parse. */
export function parseJsonc(text: string, file: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) throw new Error(`${file} does not parse (${printParseErrorCode(first.error)} at offset ${first.offset})`);
  return value;
}

/** Whether a `"plugin"` entry's spec names this plugin (package name, folder or file URL). */
export function isOurPluginSpec(spec: string): boolean {
  return /(^|[/\\@])(opencode-)?agent-tracker(\/?$|@|\/(dist|src)\/)/.test(spec) || /plugins\/agent-tracker\/?$/.test(spec);
}

/** The options the user gave this plugin in the global config (`["<spec>", {options}]`), if any. */
export function readPluginOptions(configDir: string): Record<string, unknown> | undefined {
  const file = findConfigFile(configDir);
  if (!file) return undefined;
  const config = parseJsonc(fs.readFileSync(file, 'utf8'), file);
  if (typeof config !== 'object' || config === null) return undefined;
  const plugins = (config as { plugin?: unknown }).plugin;
  if (!Array.isArray(plugins)) return undefined;
  for (const entry of plugins) {
    if (Array.isArray(entry) && typeof entry[0] === 'string' && isOurPluginSpec(entry[0])) {
      const options: unknown = entry[1];
      return typeof options === 'object' && options !== null && !Array.isArray(options) ? (options as Record<string, unknown>) : {};
    }
  }
  return undefined;
}
