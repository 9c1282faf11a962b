/**
 * The adapter side of trusted options: reads the user's own plugin options (global OpenCode config,
 * `OPENCODE_CONFIG_CONTENT`) and names the project file a distrusted key came from, for the toast.
 */
import fs from 'node:fs';
import path from 'node:path';
import { opencodeConfigDir } from '../core/config.js';
import { applyPins, mismatchLines, pinsPath, readPins } from '../core/integrity/option-pins.js';
import { trustedOptions } from '../core/integrity/trusted-options.js';
import type { TrustedOptions } from '../core/integrity/trusted-options.js';
import { parseJsonc, pluginOptionsIn, readPluginOptions } from '../provisioning/opencode-json.js';

/** The options the user owns: the global config's, overlaid by `OPENCODE_CONFIG_CONTENT`'s (an environment variable). */
export function ownedPluginOptions(env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
  let owned: Record<string, unknown> = {};
  try {
    owned = readPluginOptions(opencodeConfigDir(env)) ?? {};
  } catch {
    // A global config that does not parse: OpenCode itself reports it; the defaults restrain.
  }
  const content = env.OPENCODE_CONFIG_CONTENT;
  if (content) {
    try {
      owned = { ...owned, ...(pluginOptionsIn(parseJsonc(content, 'OPENCODE_CONFIG_CONTENT')) ?? {}) };
    } catch {
      // Unparseable content is OpenCode's to report.
    }
  }
  return owned;
}

/** Config files a project (or a variable pointing into it) can add: where a distrusted key may have come from. */
export function projectConfigFiles(project: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const files = ['opencode.json', 'opencode.jsonc', '.opencode/opencode.json', '.opencode/opencode.jsonc'].map((name) => path.join(project, name));
  if (env.OPENCODE_CONFIG) files.unshift(path.resolve(env.OPENCODE_CONFIG));
  return files;
}

/** The first project config file whose entry for this plugin sets `key`. */
export function fileSetting(key: string, files: readonly string[]): string | undefined {
  for (const file of files) {
    try {
      const options = pluginOptionsIn(parseJsonc(fs.readFileSync(file, 'utf8'), file));
      if (options && key in options) return file;
    } catch {
      // Missing or unparseable: not the source.
    }
  }
  return undefined;
}

/** The trusted options, and one line per ignored key naming the file and the key. */
export function trustPluginOptions(merged: Record<string, unknown>, project: string, env: NodeJS.ProcessEnv = process.env): TrustedOptions & { notices: string[] } {
  const trusted = trustedOptions(merged, ownedPluginOptions(env));
  const files = projectConfigFiles(project, env);
  const notices = trusted.ignored.map((key) => {
    const file = fileSetting(key, files) ?? 'a project config';
    return `agent-tracker ignored "${key}" from ${file}: settings that restrain agents are read only from the global OpenCode config (${path.join(opencodeConfigDir(env), 'opencode.json')}) or environment variables.`;
  });
  return { ...trusted, notices };
}

/**
 * The options with the user's pins applied (`agent-tracker config`): where the global config's
 * restraining options differ from what the user pinned, the stricter value, and one line each.
 */
export function pinnedPluginOptions(options: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): { options: Record<string, unknown>; lines: string[] } {
  const { pins, damaged } = readPins(pinsPath(opencodeConfigDir(env)));
  const applied = applyPins(options, pins);
  return { options: applied.options, lines: mismatchLines(applied.mismatches, damaged) };
}

/**
 * The lines `doctor` and the report footer show: the user's own options (global config and
 * `OPENCODE_CONFIG_CONTENT`) compared with the pins; empty when they agree.
 */
export function pinnedOptionMismatchLines(env: NodeJS.ProcessEnv = process.env): string[] {
  return pinnedPluginOptions(ownedPluginOptions(env), env).lines;
}
