/**
 * The .env guard: refuses tool calls that would read or change `.env` / `.env.*` files, so secrets
 * never reach the model. Templates (`.env.example`, `.env.sample`, `.env.template`) and files that
 * merely contain ".env" in their name (`x.env.ts`) stay usable.
 *
 * A pure check over the tool name and the arguments as they arrive in `tool.execute.before`. It
 * stops accidents and ordinary commands, not a determined attempt to hide the name from it.
 * A grep that names no files is narrowed to everything but env files instead of being refused.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Last name parts that mark a template without secrets: `.env.example`, `.env.local.sample`. */
const TEMPLATE_SUFFIXES: ReadonlySet<string> = new Set(['example', 'sample', 'template']);
/** Tools that take a file or folder path in `filePath`, `path` or `filePaths`. */
const PATH_TOOLS: ReadonlySet<string> = new Set(['read', 'edit', 'write', 'multiedit', 'lsp', 'grep', 'glob', 'list']);
/** Tools whose `pattern` is a file glob, and tools whose `include` is one. */
const GLOB_PATTERN_TOOLS: ReadonlySet<string> = new Set(['glob']);
const GLOB_INCLUDE_TOOLS: ReadonlySet<string> = new Set(['grep']);
const PATCH_TOOLS: ReadonlySet<string> = new Set(['patch', 'apply_patch']);
const SHELL_TOOLS: ReadonlySet<string> = new Set(['bash']);
/** Patch headers that name a file: `*** Update File: path` and friends. */
const PATCH_FILE_HEADER = /^\*\*\*\s+(?:Add File|Update File|Delete File|Move to):\s*(.+)$/gm;
/** Where a shell word ends: blanks, quotes, operators, redirections, substitutions, `=`. */
const SHELL_WORD_BREAK = /[\s'"`;&|<>()$=]+/;
const GLOB_CHARACTERS = /[*?[\]{}]/;
const ENV_NAME = '.env';
const FIX_HINT =
  'Secrets stay out of the conversation: ask the user for the value you need, or use .env.example. ' +
  'The user can turn this off with the agent-tracker option "protectEnvFiles": false.';

/** The last part of a path, after the last `/` or `\\`. */
function baseName(filePath: string): string {
  return filePath.slice(Math.max(filePath.lastIndexOf('/'), filePath.lastIndexOf('\\')) + 1);
}

/** Whether a path names a protected env file: `.env` or `.env.<anything>` except templates. */
export function isProtectedEnvPath(filePath: string, ignoreCase = false): boolean {
  const typed = baseName(filePath.trim());
  // On a file system that ignores case (macOS, Windows), `.ENV` opens `.env`.
  const name = ignoreCase ? typed.toLowerCase() : typed;
  if (name === ENV_NAME) return true;
  if (!name.startsWith(`${ENV_NAME}.`)) return false;
  const parts = name.slice(ENV_NAME.length + 1).toLowerCase().split('.');
  return !TEMPLATE_SUFFIXES.has(parts[parts.length - 1] ?? '');
}

/** `a{b,c}d` -> [abd, acd]; nested or unbalanced braces are kept as they are. */
function expandBraces(pattern: string): string[] {
  const match = /\{([^{}]*)\}/.exec(pattern);
  if (!match) return [pattern];
  const before = pattern.slice(0, match.index);
  const after = pattern.slice(match.index + match[0].length);
  return (match[1] ?? '').split(',').flatMap((choice) => expandBraces(`${before}${choice}${after}`));
}

/**
 * Whether a file glob names protected env files on purpose: its last part starts with `.env`
 * (optionally after leading `*`) and what follows could be a non-template suffix. A plain `*`
 * is not counted: it reveals names at most, and refusing it would block ordinary searches.
 */
export function globTargetsEnv(pattern: string): boolean {
  return expandBraces(pattern).some((choice) => {
    const name = baseName(choice.trim());
    const unstarred = name.replace(/^\*+/, '');
    if (!unstarred.startsWith(ENV_NAME)) return false;
    const rest = unstarred.slice(ENV_NAME.length);
    // After leading stars only wildcard-only tails count (`*.env*`), so `*.env.ts` stays allowed.
    if (unstarred !== name && /[A-Za-z0-9_-]/.test(rest.replace(/^\./, ''))) return false;
    if (rest === '') return true;
    if (!GLOB_CHARACTERS.test(rest)) return isProtectedEnvPath(unstarred);
    // `.env*`, `.env.*`, `.env.?*`: a wildcard could stand for a secret file's suffix.
    return rest.startsWith('*') || rest.startsWith('?') || rest.startsWith('[') || rest.startsWith('.');
  });
}

/** Names a glob could reach that are env files: a glob matching any of them targets env files. */
const ENV_NAMES_TO_TRY = ['.env', '.env.local', '.env.production', '.env.development', '.env.test'];

/** A shell glob's last part as a RegExp (`?`, `*`, `[...]`, `[!...]`), or undefined when it has no wildcard. */
function globRegExp(glob: string): RegExp | undefined {
  if (!GLOB_CHARACTERS.test(glob)) return undefined;
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i] as string;
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else if (char === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) source += '\\[';
      else {
        const inside = glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        source += `[${inside}]`;
        i = end;
      }
    } else source += char.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  try {
    return new RegExp(`^${source}$`, 'i');
  } catch {
    return undefined;
  }
}

/**
 * Whether a glob word such as `.en?`, `.[e]nv` or `.e*` reaches an env file the way the shell
 * expands it: it starts with a dot, spells at least one letter of "env" itself, and matches an
 * env file name. (`.*` alone does not count: it lists every dotfile, and masking covers it.)
 */
export function shellGlobReachesEnv(word: string): boolean {
  const name = baseName(word);
  if (!name.startsWith('.') || !/[env]/i.test(name.replace(/\[[^\]]*\]/g, ''))) return false;
  const pattern = globRegExp(name);
  return pattern !== undefined && ENV_NAMES_TO_TRY.some((candidate) => pattern.test(candidate));
}

/** Whether one word (a path or a glob) points at a protected env file. */
function wordTargetsEnv(word: string, ignoreCase = false): boolean {
  // Every form below needs a dot in the word (brace expansion only rearranges its characters).
  if (!word.includes('.')) return false;
  // `HEAD:.env`, `origin/main:config/.env`: git's REV:path names a file too.
  const colon = word.indexOf(':');
  if (colon > 0 && wordTargetsEnv(word.slice(colon + 1), ignoreCase)) return true;
  return GLOB_CHARACTERS.test(word) ? globTargetsEnv(word) || shellGlobReachesEnv(word) : isProtectedEnvPath(word, ignoreCase);
}

/**
 * The protected env file a shell command mentions, if any (`cat .env`, `source ./.env.local`). The
 * words are read as typed and as the shell reads them after quote removal (`.e""nv`, `'.env'`, `.e\nv`).
 */
export function envFileInCommand(command: string, ignoreCase = false): string | undefined {
  if (!command.includes('.')) return undefined;
  // Without quotes or backslashes the shell reads the words as typed: one pass is enough.
  const texts = /["'\\]/.test(command)
    ? [command, command.replace(/\\(.)/g, '$1').replace(/(\S)["']+(?=\S)/g, '$1').replace(/["']/g, ' ')]
    : [command];
  for (const text of texts) {
    const found = text.split(SHELL_WORD_BREAK).find((word) => wordTargetsEnv(word, ignoreCase));
    if (found) return found;
  }
  return undefined;
}

/** The words of a shell command, as typed and after quote removal (for checks on the paths it names). */
export function shellWords(command: string): string[] {
  const texts = /["'\\]/.test(command)
    ? [command, command.replace(/\\(.)/g, '$1').replace(/(\S)["']+(?=\S)/g, '$1').replace(/["']/g, ' ')]
    : [command];
  return texts.flatMap((text) => text.split(SHELL_WORD_BREAK)).filter((word) => word !== '');
}

/** The string values of the named arguments (a string, or the strings of an array), in order. */
export function stringArgs(args: unknown, names: readonly string[]): string[] {
  if (typeof args !== 'object' || args === null) return [];
  const record = args as Record<string, unknown>;
  const found: string[] = [];
  for (const name of names) {
    const value = record[name];
    if (typeof value === 'string') found.push(value);
    else if (Array.isArray(value)) for (const item of value as unknown[]) if (typeof item === 'string') found.push(item);
  }
  return found;
}

function refusal(tool: string, target: string): string {
  return `agent-tracker refused ${tool}: "${target}" is a protected .env file and may hold secrets. ${FIX_HINT}`;
}

/**
 * The guard plugged into the tool.execute.before hook: a refusal reason for a call that would
 * touch a protected env file, undefined otherwise. `ignoreCase` where the project's file system does.
 */
export function createEnvFileGuard(options: { ignoreCase?: boolean } = {}): (tool: string, args: unknown) => string | undefined {
  const ignoreCase = options.ignoreCase ?? false;
  return (tool, args) => envFileRefusal(tool, args, ignoreCase);
}

/** The guard for a case-sensitive file system. */
export function envFileGuard(tool: string, args: unknown): string | undefined {
  return envFileRefusal(tool, args, false);
}

function envFileRefusal(tool: string, args: unknown, ignoreCase: boolean): string | undefined {
  if (PATH_TOOLS.has(tool)) {
    const target = stringArgs(args, ['filePath', 'path', 'filePaths']).find((value) => wordTargetsEnv(value.trim(), ignoreCase));
    if (target) return refusal(tool, target);
  }
  if (GLOB_PATTERN_TOOLS.has(tool)) {
    const target = stringArgs(args, ['pattern']).find((value) => globTargetsEnv(value));
    if (target) return refusal(tool, target);
  }
  if (GLOB_INCLUDE_TOOLS.has(tool)) {
    const target = stringArgs(args, ['include']).find((value) => globTargetsEnv(value));
    if (target) return refusal(tool, target);
  }
  if (PATCH_TOOLS.has(tool)) {
    for (const patch of stringArgs(args, ['patchText', 'patch'])) {
      for (const header of patch.matchAll(PATCH_FILE_HEADER)) {
        const target = (header[1] ?? '').trim();
        if (isProtectedEnvPath(target, ignoreCase)) return refusal(tool, target);
      }
    }
  }
  if (SHELL_TOOLS.has(tool)) {
    for (const command of stringArgs(args, ['command'])) {
      const target = envFileInCommand(command, ignoreCase);
      if (target) return refusal(tool, target);
    }
  }
  return undefined;
}

/** The file filter a grep that names no files runs with: ripgrep's negated glob, all but env files. */
export const GREP_WITHOUT_ENV_FILES = '!.env*';
/** A file filter of wildcards, dots and slashes only (such as `*`, `**`, `*.*`): every file, `.env` too. */
const CATCH_ALL_GLOB = /^[*?./]*\*[*?./]*$/;

/**
 * Narrows a project-wide grep (no `include`, or one of wildcards only) to every file except env files, so its matches can
 * never show a secret line; ripgrep searches hidden files, `.env` included. Changes the arguments
 * the host runs the call with. (Templates such as `.env.example` are left out of such a search too:
 * one glob cannot tell them apart; grep them by name.)
 */
export function confineGrepToNonEnvFiles(tool: string, args: unknown): void {
  if (!GLOB_INCLUDE_TOOLS.has(tool) || typeof args !== 'object' || args === null) return;
  const record = args as Record<string, unknown>;
  const include = typeof record.include === 'string' ? record.include.trim() : '';
  if (include === '' || CATCH_ALL_GLOB.test(include)) record.include = GREP_WITHOUT_ENV_FILES;
}


/** Whether the file system holding `directory` ignores case (macOS and Windows defaults): a case-flipped name of an entry resolves. */
export function fileSystemIgnoresCase(directory: string): boolean {
  try {
    const entry = fs.readdirSync(directory).find((name) => name.toLowerCase() !== name.toUpperCase());
    if (!entry) return false;
    const flipped = [...entry].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    return fs.existsSync(path.join(directory, flipped));
  } catch {
    return false;
  }
}
