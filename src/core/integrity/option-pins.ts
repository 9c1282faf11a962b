/**
 * Pinned options: what restrains agents (RESTRAINING_OPTIONS) as the user last set or confirmed it
 * with `agent-tracker config`. The agent is the same OS user and can edit the global config with a
 * script; the pin cannot stop that, but makes it visible: at start the config is compared with the
 * pin, and where they differ the STRICTER value applies until the user confirms the change.
 *
 * The pin is a file in the OpenCode config folder, not a record in the database: `databasePath`
 * is itself pinned, and the plugin resolves its options before the database is opened (or
 * cleared by the out-of-process check), so the pin must be readable without it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { DEFAULT_RULES } from '../rules.js';
import type { ScoringRules } from '../rules.js';
import { RESTRAINING_OPTIONS } from './trusted-options.js';

export type RestrainingOption = (typeof RESTRAINING_OPTIONS)[number];

export const PINS_FILE_NAME = 'agent-tracker.pins.json';
const PINS_FORMAT = 1;
/** The largest pins file read: a few options, never megabytes. */
const MAX_PINS_FILE_BYTES = 64 * 1024;

export interface OptionPins {
  /** The restraining options' values as pinned (absent: the default). */
  values: Partial<Record<RestrainingOption, unknown>>;
  pinnedAt: string;
}

export interface PinMismatch {
  key: RestrainingOption;
  /** What the config says now (undefined: not set, the default). */
  configured: unknown;
  pinned: unknown;
  /** What applies until the user confirms. */
  applied: unknown;
}

/** Booleans whose `true` restrains: either side true (or unset: default true) wins. */
const RESTRAINING_WHEN_TRUE: ReadonlySet<string> = new Set(['haltBlocksTools', 'protectEnvFiles']);
/** Rules whose lower value is stricter (less credit, a lower start, a lower CS ceiling). */
const LOWER_IS_STRICTER: ReadonlySet<string> = new Set(['xpPerToolCall', 'xpPerCommand', 'xpPerCommit', 'xpPerPush', 'xpPerGradedCommit', 'csCapPerSp', 'initialSp', 'initialXp', 'initialCs']);

/** The pins file of a config folder. */
export function pinsPath(configDir: string): string {
  return path.join(configDir, PINS_FILE_NAME);
}

/** Order-independent JSON, so `{"a":1,"b":2}` and `{"b":2,"a":1}` pin alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The restraining options of a set of plugin options (absent ones left out). */
export function restrainingValues(options: Record<string, unknown>): Partial<Record<RestrainingOption, unknown>> {
  const values: Partial<Record<RestrainingOption, unknown>> = {};
  for (const key of RESTRAINING_OPTIONS) if (options[key] !== undefined) values[key] = options[key];
  return values;
}

/** The digest recorded with the pins: sha256 of the values' canonical JSON. */
export function pinsDigest(values: Partial<Record<RestrainingOption, unknown>>): string {
  return createHash('sha256').update(canonicalJson(values)).digest('hex');
}

/**
 * The pins in `file`; undefined when there is none. A file that does not parse or whose digest does
 * not match its values counts as pins of the defaults (the strictest booleans), with `damaged` set.
 */
export function readPins(file: string): { pins?: OptionPins; damaged?: boolean } {
  let text: string;
  try {
    const stat = fs.lstatSync(file);
    if (!stat.isFile() || stat.size > MAX_PINS_FILE_BYTES) return { pins: { values: {}, pinnedAt: '' }, damaged: true };
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed = JSON.parse(text) as { format?: unknown; values?: unknown; digest?: unknown; pinnedAt?: unknown };
    const values = parsed.values;
    if (parsed.format !== PINS_FORMAT || typeof values !== 'object' || values === null || Array.isArray(values)) throw new Error('not pins');
    const own = restrainingValues(values as Record<string, unknown>);
    if (parsed.digest !== pinsDigest(own) || Object.keys(values).length !== Object.keys(own).length) throw new Error('digest');
    return { pins: { values: own, pinnedAt: typeof parsed.pinnedAt === 'string' ? parsed.pinnedAt : '' } };
  } catch {
    return { pins: { values: {}, pinnedAt: '' }, damaged: true };
  }
}

/** Records `options`' restraining values as the pins (atomically; never through a link). */
export function writePins(file: string, options: Record<string, unknown>, now: Date = new Date()): OptionPins {
  const values = restrainingValues(options);
  const pins: OptionPins = { values, pinnedAt: now.toISOString() };
  writeFileAtomic(file, `${JSON.stringify({ format: PINS_FORMAT, values, digest: pinsDigest(values), pinnedAt: pins.pinnedAt }, null, 2)}\n`);
  return pins;
}

/** The stricter of two rules objects, rule by rule (invalid ones resolve later and are reported there). */
function stricterRules(pinned: unknown, configured: unknown): unknown {
  const asRules = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
  const a = asRules(pinned);
  const b = asRules(configured);
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(DEFAULT_RULES) as (keyof ScoringRules)[]) {
    const left = typeof a[key] === 'number' ? (a[key] as number) : DEFAULT_RULES[key];
    const right = typeof b[key] === 'number' ? (b[key] as number) : DEFAULT_RULES[key];
    const value = LOWER_IS_STRICTER.has(key) ? Math.min(left, right) : Math.max(left, right);
    if (value !== DEFAULT_RULES[key]) result[key] = value;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

/**
 * The value that applies while `configured` differs from `pinned`: the restraining boolean when
 * either asks for it, the stricter rule of each pair, and for the database's path and size (which
 * have no "stricter") the pinned value, so the record stays where and as large as the user said.
 */
export function stricterValue(key: RestrainingOption, pinned: unknown, configured: unknown): unknown {
  if (RESTRAINING_WHEN_TRUE.has(key)) return pinned === false && configured === false ? false : pinned === undefined && configured === undefined ? undefined : true;
  if (key === 'rules') return stricterRules(pinned, configured);
  return pinned;
}

/** A value as it acts: an unset restraining boolean is `true`, its default. */
function effective(key: RestrainingOption, value: unknown): string {
  return canonicalJson(RESTRAINING_WHEN_TRUE.has(key) && value === undefined ? true : value);
}

/**
 * The options with the pins applied: where a restraining option differs from its pin, the stricter
 * value replaces it and a mismatch is listed. Without pins, the restraining booleans and rules are held
 * to their defaults (the strictest), while the database's path and size stay as configured.
 */
export function applyPins(options: Record<string, unknown>, pins: OptionPins | undefined): { options: Record<string, unknown>; mismatches: PinMismatch[] } {
  const pinned = pins?.values ?? {};
  const result: Record<string, unknown> = { ...options };
  const mismatches: PinMismatch[] = [];
  for (const key of RESTRAINING_OPTIONS) {
    const configured = options[key];
    // Before anything was pinned, where the record lives and how large it may grow are the user's
    // config as it stands (they have no stricter value): an upgrade must not move the database.
    if (pins === undefined && !RESTRAINING_WHEN_TRUE.has(key) && key !== 'rules') continue;
    if (effective(key, configured) === effective(key, pinned[key])) continue;
    const applied = stricterValue(key, pinned[key], configured);
    mismatches.push({ key, configured, pinned: pinned[key], applied });
    if (applied === undefined) delete result[key];
    else result[key] = applied;
  }
  return { options: result, mismatches };
}

function shown(value: unknown): string {
  return value === undefined ? 'not set (default)' : canonicalJson(value);
}

/** One line per mismatch, for the toast, `doctor` and the report footer. */
export function mismatchLines(mismatches: readonly PinMismatch[], damaged = false): string[] {
  const lines = mismatches.map(
    (m) =>
      `agent-tracker: option "${m.key}" in the global OpenCode config is ${shown(m.configured)} but was pinned as ${shown(m.pinned)} ` +
      `(changed by something other than "agent-tracker config"); ${shown(m.applied)} applies until you run "agent-tracker config confirm" (or "agent-tracker config set ${m.key} VALUE").`,
  );
  if (damaged) lines.unshift('agent-tracker: the pinned options file does not match its digest (edited by hand?); the defaults count as pinned until you run "agent-tracker config confirm".');
  return lines;
}
