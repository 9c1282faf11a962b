/**
 * `agent-tracker config set KEY VALUE | get KEY | list | confirm`: the user's own way to change the
 * plugin options that restrain agents. `set` edits the global OpenCode config (comments and
 * formatting kept) and pins the restraining options; `confirm` pins what the config says now, after
 * an edit made some other way. At start the plugin compares the config with the pins and applies
 * the stricter value where they differ (core/integrity/option-pins.ts).
 */
import fs from 'node:fs';
import { checkOptionName, opencodeConfigDir, resolveConfig } from '../../core/config.js';
import { writeFileAtomic, UnsafeWriteError } from '../../core/fs/atomic-write.js';
import { applyPins, canonicalJson, pinsPath, readPins, writePins } from '../../core/integrity/option-pins.js';
import { RESTRAINING_OPTIONS } from '../../core/integrity/trusted-options.js';
import { configFileForEdit, editJsonc, isOurPluginSpec, newConfigText, parseJsonc, readPluginOptions } from '../../provisioning/opencode-json.js';
import { CliError, parseCommandArgs } from '../context.js';
import type { Output } from '../context.js';
import { refuseUnderAgent } from '../user-only.js';

const SUBCOMMANDS = 'set KEY VALUE, get KEY, list or confirm';

function isRestraining(key: string): key is (typeof RESTRAINING_OPTIONS)[number] {
  return (RESTRAINING_OPTIONS as readonly string[]).includes(key);
}

/** A VALUE as typed: JSON when it parses (`false`, `1048576`, `{"xpPerCommit":3}`), else the text (a path). */
function parseValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function ownOptions(configDir: string): Record<string, unknown> {
  try {
    return readPluginOptions(configDir) ?? {};
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

/** The index of this plugin's entry in the config's `"plugin"` list. */
function pluginEntryIndex(config: unknown): number {
  const plugins = typeof config === 'object' && config !== null ? (config as { plugin?: unknown }).plugin : undefined;
  if (!Array.isArray(plugins)) return -1;
  return plugins.findIndex((entry) => (typeof entry === 'string' ? isOurPluginSpec(entry) : Array.isArray(entry) && typeof entry[0] === 'string' && isOurPluginSpec(entry[0])));
}

/** Writes `key: value` into this plugin's entry of the global config, touching only that spot. */
function setInGlobalConfig(configDir: string, key: string, value: unknown): string {
  const file = configFileForEdit(configDir);
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : newConfigText();
  const parsed = parseJsonc(text, file);
  const index = pluginEntryIndex(parsed);
  if (index < 0) throw new CliError(`agent-tracker is not registered in ${file}; run "agent-tracker setup" first`);
  const entry = (parsed as { plugin: unknown[] }).plugin[index];
  const edited = Array.isArray(entry)
    ? entry.length > 1 && typeof entry[1] === 'object' && entry[1] !== null
      ? editJsonc(text, ['plugin', index, 1, key], value)
      : editJsonc(text, ['plugin', index], [entry[0], { [key]: value }])
    : editJsonc(text, ['plugin', index], [entry, { [key]: value }]);
  try {
    writeFileAtomic(file, edited);
  } catch (error) {
    throw new CliError(error instanceof UnsafeWriteError ? error.message : `cannot write ${file}: ${(error as Error).message}`);
  }
  return file;
}

function shown(value: unknown): string {
  return value === undefined ? '(not set: default)' : canonicalJson(value);
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, {});
  const [action, key, rawValue, ...rest] = positionals;
  const configDir = opencodeConfigDir();
  const pinsFile = pinsPath(configDir);
  switch (action) {
    case 'set': {
      if (key === undefined || rawValue === undefined || rest.length > 0) throw new CliError('usage: agent-tracker config set KEY VALUE');
      refuseUnderAgent('config set');
      const value = parseValue(rawValue);
      try {
        resolveConfig({ options: { [key]: value } });
      } catch (error) {
        throw new CliError((error as Error).message);
      }
      const file = setInGlobalConfig(configDir, key, value);
      const pinned = isRestraining(key);
      if (pinned) writePins(pinsFile, { ...ownOptions(configDir), [key]: value });
      output.out(values.json ? JSON.stringify({ key, value, file, pinned }) : `Set ${key} = ${canonicalJson(value)} in ${file}${pinned ? ` and pinned it (${pinsFile}).` : '.'}`);
      return;
    }
    case 'confirm': {
      if (key !== undefined) throw new CliError('usage: agent-tracker config confirm');
      refuseUnderAgent('config confirm');
      const pins = writePins(pinsFile, ownOptions(configDir));
      output.out(values.json ? JSON.stringify({ pinned: pins.values, file: pinsFile }) : `Pinned the restraining options as the global config has them now: ${canonicalJson(pins.values)} (${pinsFile}).`);
      return;
    }
    case 'get':
    case 'list': {
      if (action === 'get' && (key === undefined || rest.length > 0 || rawValue !== undefined)) throw new CliError('usage: agent-tracker config get KEY');
      if (action === 'list' && key !== undefined) throw new CliError('usage: agent-tracker config list');
      if (key !== undefined) {
        try {
          checkOptionName(key);
        } catch (error) {
          throw new CliError((error as Error).message);
        }
      }
      const own = ownOptions(configDir);
      const { pins, damaged } = readPins(pinsFile);
      const { options: applied, mismatches } = applyPins(own, pins);
      const keys = action === 'get' ? [key as string] : [...RESTRAINING_OPTIONS];
      const rows = keys.map((name) => ({
        key: name,
        configured: own[name],
        ...(isRestraining(name) ? { pinned: pins?.values[name], mismatch: mismatches.some((m) => m.key === name) } : {}),
        applies: applied[name],
      }));
      if (values.json) {
        output.out(JSON.stringify({ options: rows, ...(damaged ? { damagedPins: true } : {}) }, null, 2));
        return;
      }
      const lines = rows.map((row) => {
        const state = row.mismatch ? `DIFFERS from pinned ${shown(row.pinned)}; ${shown(row.applies)} applies until "agent-tracker config confirm"` : row.pinned === undefined && !isRestraining(row.key) ? 'not pinned' : 'as pinned';
        return `${row.key}: ${shown(row.configured)} (${state})`;
      });
      if (damaged) lines.unshift(`The pins file ${pinsFile} does not match its digest; the defaults count as pinned.`);
      output.out(lines.join('\n'));
      return;
    }
    default:
      throw new CliError(`expects ${SUBCOMMANDS}`);
  }
}
