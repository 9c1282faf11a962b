/**
 * Resolves and validates the tracker's settings from plugin options and the environment.
 * The plugin and the CLI both go through here, so they always open the same database.
 */
import { compileTestPatterns } from './outcomes/test-runs.js';
import os from 'node:os';
import path from 'node:path';
import type { ScoringRules } from './rules.js';
import { resolveRules } from './rules.js';
import { RESTRAINING_OPTIONS } from './integrity/trusted-options.js';

export const MIB = 1024 * 1024;
export const DEFAULT_MAX_DATABASE_SIZE = 512 * MIB;
export const MIN_DATABASE_SIZE = 1 * MIB;
export const MAX_DATABASE_SIZE = 2048 * MIB;
export const DATABASE_FILE_NAME = 'agent-tracker.lmdb';
/** Flush early once this many mutations are buffered, or the oldest is this old. */
export const DEFAULT_FLUSH_MAX_MUTATIONS = 5000;
export const DEFAULT_FLUSH_MAX_AGE_MS = 60_000;
/** Upper bounds of the flush options: past a million buffered mutations memory, past a day a timer (which overflows at 2^31 ms), stop making sense. */
export const MAX_FLUSH_MAX_MUTATIONS = 1_000_000;
export const MAX_FLUSH_MAX_AGE_MS = 24 * 60 * 60_000;

export interface TrackerConfig {
  databasePath: string;
  maxDatabaseSize: number;
  rules: ScoringRules;
  haltBlocksTools: boolean;
  protectEnvFiles: boolean;
  exportStatus: boolean;
  /** Import OpenCode's past sessions in the background (first run: all; then what is new). */
  importHistory: boolean;
  flushMaxMutations: number;
  flushMaxAgeMs: number;
  /** Provision missing agents, skills, AGENTS.md section and commands at plugin start (off: option false or AGENT_TRACKER_SKIP_SETUP=1). */
  selfProvision: boolean;
  /** Extra patterns (option `testCommands`) that make a bash command count as a test run. */
  testCommandPatterns: RegExp[];
}

/** A config as plain data, for another process (JSON): its test-command patterns as [source, flags]. */
export type PortableConfig = Omit<TrackerConfig, 'testCommandPatterns'> & { testCommandPatterns: [string, string][] };

export function portableConfig(config: TrackerConfig): PortableConfig {
  return { ...config, testCommandPatterns: config.testCommandPatterns.map((pattern) => [pattern.source, pattern.flags]) };
}

export function configFromPortable(config: PortableConfig): TrackerConfig {
  return { ...config, testCommandPatterns: config.testCommandPatterns.map(([source, flags]) => new RegExp(source, flags)) };
}

/** A setting the user gave that cannot be used; the message says what to change. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface ConfigSources {
  options?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** The OpenCode config folder: `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`. */
export function opencodeConfigDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config');
  return path.join(base, 'opencode');
}

/** Expands a leading `~/` and resolves a relative path against home (never against the cwd). */
export function resolveAgainstHome(input: string, home: string): string {
  const expanded = input === '~' ? home : input.startsWith('~/') ? path.join(home, input.slice(2)) : input;
  return path.isAbsolute(expanded) ? path.normalize(expanded) : path.join(home, expanded);
}

const KNOWN_OPTIONS = [
  'databasePath',
  'maxDatabaseSize',
  'rules',
  'haltBlocksTools',
  'protectEnvFiles',
  'exportStatus',
  'importHistory',
  'flushMaxMutations',
  'flushMaxAgeMs',
  // Resolved on its own (adapters/telemetry/settings.ts): a bad telemetry setting turns off telemetry, not tracking.
  'telemetry',
  'selfProvision',
  'testCommands',
] as const;

/** The environment switch that turns provisioning off: for npm's postinstall and for the plugin's self-provisioning. */
export const SKIP_SETUP_ENV = 'AGENT_TRACKER_SKIP_SETUP';

/** Option `testCommands`: a list of regular expressions (strings), each matched against a simple shell command. */
function testCommandPatterns(value: unknown): RegExp[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item): item is string => typeof item === 'string' && item !== '')) {
    throw new ConfigError(`option "testCommands" must be a list of regular expressions as strings, e.g. ["^make check\\b"], got ${JSON.stringify(value)}`);
  }
  const { patterns, invalid } = compileTestPatterns(value);
  if (invalid.length > 0) throw new ConfigError(`option "testCommands" holds an invalid regular expression: ${JSON.stringify(invalid[0])}`);
  return patterns;
}

function booleanOption(options: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new ConfigError(`option "${name}" must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

function positiveIntegerOption(options: Record<string, unknown>, name: string, fallback: number, max: number): number {
  const value = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > max) {
    throw new ConfigError(`option "${name}" must be a whole number from 1 to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function validateDatabaseSize(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < MIN_DATABASE_SIZE || value > MAX_DATABASE_SIZE) {
    throw new ConfigError(
      `maxDatabaseSize must be between 1 MiB (${MIN_DATABASE_SIZE}) and 2 GiB (${MAX_DATABASE_SIZE}) bytes, got ${JSON.stringify(value)}`,
    );
  }
  return Math.floor(value);
}

/** @throws ConfigError naming every known option when `key` is not one of them. */
export function checkOptionName(key: string): void {
  if (!(KNOWN_OPTIONS as readonly string[]).includes(key)) throw new ConfigError(`unknown option "${key}"; known options: ${KNOWN_OPTIONS.join(', ')}`);
}

/**
 * Resolves the settings. Precedence for the path: `AGENT_TRACKER_DB_PATH`, then the
 * `databasePath` option, then the default in the OpenCode config folder.
 * @throws ConfigError naming the bad setting and what is allowed.
 */
export function resolveConfig(sources: ConfigSources = {}): TrackerConfig {
  const env = sources.env ?? process.env;
  const home = sources.home ?? os.homedir();
  const options = sources.options ?? {};
  for (const key of Object.keys(options)) checkOptionName(key);

  const fromOption = options.databasePath;
  if (fromOption !== undefined && (typeof fromOption !== 'string' || fromOption.trim() === '')) {
    throw new ConfigError(`option "databasePath" must be a non-empty path, got ${JSON.stringify(fromOption)}`);
  }
  const fromEnv = env.AGENT_TRACKER_DB_PATH?.trim();
  const chosen = fromEnv || (fromOption as string | undefined);
  const databasePath = chosen
    ? resolveAgainstHome(chosen, home)
    : path.join(opencodeConfigDir(env, home), DATABASE_FILE_NAME);

  const maxDatabaseSize =
    options.maxDatabaseSize === undefined ? DEFAULT_MAX_DATABASE_SIZE : validateDatabaseSize(options.maxDatabaseSize);

  let rules: ScoringRules;
  try {
    rules = resolveRules(options.rules);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }

  return {
    databasePath,
    maxDatabaseSize,
    rules,
    haltBlocksTools: booleanOption(options, 'haltBlocksTools', true),
    protectEnvFiles: booleanOption(options, 'protectEnvFiles', true),
    exportStatus: booleanOption(options, 'exportStatus', false),
    // AGENT_TRACKER_IMPORT_HISTORY=0 turns it off for one environment (e.g. tests that share one OpenCode data folder).
    importHistory: env.AGENT_TRACKER_IMPORT_HISTORY?.trim() === '0' ? false : booleanOption(options, 'importHistory', true),
    flushMaxMutations: positiveIntegerOption(options, 'flushMaxMutations', DEFAULT_FLUSH_MAX_MUTATIONS, MAX_FLUSH_MAX_MUTATIONS),
    flushMaxAgeMs: positiveIntegerOption(options, 'flushMaxAgeMs', DEFAULT_FLUSH_MAX_AGE_MS, MAX_FLUSH_MAX_AGE_MS),
    selfProvision: booleanOption(options, 'selfProvision', true) && env[SKIP_SETUP_ENV] !== '1',
    testCommandPatterns: testCommandPatterns(options.testCommands),
  };
}

/** Settings for a session, and one line per option that was set aside so tracking could stay on. */
export interface SessionConfig {
  config: TrackerConfig;
  warnings: string[];
}

/**
 * Resolves the settings without letting a stray option turn tracking off: an unknown option, or a
 * bad value of an option that restrains nothing (`exportStatus: "x"`), is set aside with a warning
 * naming it. A bad restraining option (databasePath, rules, ...) still throws: guessing a database
 * path or weaker rules is worse than stopping, and those come only from the user's own config.
 */
export function resolveSessionConfig(sources: ConfigSources = {}): SessionConfig {
  const options: Record<string, unknown> = { ...(sources.options ?? {}) };
  const warnings: string[] = [];
  for (const key of Object.keys(options)) {
    if ((KNOWN_OPTIONS as readonly string[]).includes(key)) continue;
    delete options[key];
    warnings.push(`agent-tracker ignored the unknown option "${key}" (known options: ${KNOWN_OPTIONS.join(', ')}); tracking stays on.`);
  }
  for (const key of Object.keys(options)) {
    if ((RESTRAINING_OPTIONS as readonly string[]).includes(key)) continue;
    try {
      resolveConfig({ ...sources, options: { [key]: options[key] } });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      delete options[key];
      warnings.push(`agent-tracker ignored option "${key}" and uses its default: ${error.message}; tracking stays on.`);
    }
  }
  return { config: resolveConfig({ ...sources, options }), warnings };
}
