/**
 * Reading and editing the user's global OpenCode config (`opencode.json` or `opencode.jsonc`) with
 * jsonc-parser, as OpenCode itself does: comments and trailing commas are allowed, and an edit
 * changes only the spot it is about, so comments, order and formatting elsewhere survive.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as Jsonc from 'jsonc-parser';
import type { FormattingOptions, JSONPath, ParseError } from 'jsonc-parser';

export const PLUGIN_NAME = 'agent-tracker';
export const PACKAGE_NAME = 'opencode-agent-tracker';
const CONFIG_FILE_NAMES = ['opencode.jsonc', 'opencode.json'] as const;

/** The config file in use in a config folder (`.jsonc` first, as OpenCode reads it), if any. */
export function findConfigFile(configDir: string): string | undefined {
  for (const name of CONFIG_FILE_NAMES) {
    const file = path.join(configDir, name);
    if (fs.existsSync(file)) return file;
  }
  return undefined;
}

let jsonc: typeof Jsonc | undefined;

/**
 * jsonc-parser, loaded on first use: the plugin and every CLI command read the global config at
 * start, and most configs are plain JSON. `require` because the callers are synchronous (the
 * package's published entry is CommonJS, the same file an `import` loads).
 */
function jsoncParser(): typeof Jsonc {
  jsonc ??= createRequire(import.meta.url)('jsonc-parser') as typeof Jsonc;
  return jsonc;
}

/** `line L, column C` (both from 1) of an offset, as an editor shows a position. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return `line ${before.split('\n').length}, column ${offset - lineStart + 1}`;
}

/** A UTF-8 byte-order mark, as some editors save files: OpenCode reads such a config, so the tracker does too. */
const BOM = '\ufeff';

/** Parses JSONC text; throws with the first error's position when it does not parse. */
export function parseJsonc(withBom: string, file: string): unknown {
  const text = withBom.startsWith(BOM) ? withBom.slice(BOM.length) : withBom;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Comments or trailing commas: the JSONC parser below.
  }
  const { parse, printParseErrorCode } = jsoncParser();
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) throw new Error(`${file} does not parse (${printParseErrorCode(first.error)} at ${lineAndColumn(text, first.offset)})`);
  return value;
}

/** Whether a `"plugin"` entry's spec names this plugin (package name, folder or file URL). */
export function isOurPluginSpec(spec: string): boolean {
  return /(^|[/\\@])(opencode-)?agent-tracker(\/?$|@|\/(dist|src)\/)/.test(spec) || /plugins\/agent-tracker\/?$/.test(spec) || isOurPackageFolder(spec);
}

/** A local folder spec (`file://` URL or absolute path) whose package.json names this package. */
function isOurPackageFolder(spec: string): boolean {
  let folder: string;
  try {
    folder = spec.startsWith('file://') ? fileURLToPath(spec) : spec;
  } catch {
    return false;
  }
  if (!path.isAbsolute(folder)) return false;
  try {
    const manifest: unknown = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
    return typeof manifest === 'object' && manifest !== null && (manifest as { name?: unknown }).name === PACKAGE_NAME;
  } catch {
    return false;
  }
}

/** Our entry's options in a parsed config (`[spec, options]`, or OpenCode 2's `{ package, options }`; `{}` when it has none); undefined without the entry. */
export function pluginOptionsIn(config: unknown): Record<string, unknown> | undefined {
  if (!isJsonObject(config)) return undefined;
  // OpenCode 2's list first (`{ package, options }`): when a config has both, that is the one version 2 reads.
  if (Array.isArray(config.plugins)) {
    for (const entry of config.plugins) {
      if (typeof entry === 'string' && isOurPluginSpec(entry)) return {};
      if (isJsonObject(entry) && typeof entry.package === 'string' && isOurPluginSpec(entry.package)) return isJsonObject(entry.options) ? entry.options : {};
    }
  }
  const plugins = config.plugin;
  if (!Array.isArray(plugins)) return undefined;
  for (const entry of plugins) {
    if (Array.isArray(entry) && typeof entry[0] === 'string' && isOurPluginSpec(entry[0])) {
      const options: unknown = entry[1];
      return typeof options === 'object' && options !== null && !Array.isArray(options) ? (options as Record<string, unknown>) : {};
    }
  }
  return undefined;
}

/** The options the user gave this plugin in the global config (`["<spec>", {options}]`), if any. */
export function readPluginOptions(configDir: string): Record<string, unknown> | undefined {
  const file = findConfigFile(configDir);
  return file ? pluginOptionsIn(parseJsonc(fs.readFileSync(file, 'utf8'), file)) : undefined;
}

/** A new global config: just the schema, so editors can check it. */
const NEW_CONFIG_TEXT = '{\n  "$schema": "https://opencode.ai/config.json"\n}\n';
const DEFAULT_INDENT = 2;

/** The config file to edit: the one in use, else a new `opencode.json`. */
export function configFileForEdit(configDir: string): string {
  return findConfigFile(configDir) ?? path.join(configDir, 'opencode.json');
}

/** The text a missing config file starts from. */
export function newConfigText(): string {
  return NEW_CONFIG_TEXT;
}

/** Indentation and line endings as the file already uses them, so edits look hand-written. */
export function formattingOf(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /^([ \t]+)["/}\]]/m.exec(text)?.[1];
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent ? indent.length : DEFAULT_INDENT, eol };
}

/**
 * Sets (or, with `undefined`, removes) the value at `jsonPath`, touching only that spot. With
 * `insertAt`, a new array element or object property goes in at that position. Position 0 (right
 * after the opening bracket) keeps every existing line, trailing comments included, as it was;
 * jsonc-parser appends right after the last value, before that line's comment.
 */
export function editJsonc(text: string, jsonPath: JSONPath, value: unknown, insertAt?: number): string {
  // Offsets count from the first character of the JSON: the mark stays in front, untouched.
  if (text.startsWith(BOM)) return BOM + editJsonc(text.slice(BOM.length), jsonPath, value, insertAt);
  const intoArray = insertAt !== undefined && typeof jsonPath[jsonPath.length - 1] === 'number';
  if (value === undefined) {
    const removed = withoutLastArrayElement(text, jsonPath);
    if (removed !== undefined) return removed;
  }
  const { applyEdits, modify } = jsoncParser();
  const edits = modify(text, jsonPath, value, {
    // A removal is exact as it is; formatting it would re-indent the neighbouring entries too.
    ...(value === undefined ? {} : { formattingOptions: formattingOf(text) }),
    ...(insertAt === undefined ? {} : { isArrayInsertion: intoArray, getInsertionIndex: () => insertAt }),
  });
  return applyEdits(text, edits);
}

/**
 * The text without the array element at `jsonPath` when it is the last of several, else undefined.
 * jsonc-parser 3.3.1 removes such an element one character short (`["a", "b"]` becomes `["a""]`, its
 * issue #108): here it goes from the end of the element before it to its own end, separator included.
 */
function withoutLastArrayElement(text: string, jsonPath: JSONPath): string | undefined {
  const index = jsonPath[jsonPath.length - 1];
  if (typeof index !== 'number') return undefined;
  const { findNodeAtLocation, parseTree } = jsoncParser();
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  const array = tree && findNodeAtLocation(tree, jsonPath.slice(0, -1));
  const elements = array?.type === 'array' ? (array.children ?? []) : [];
  const element = elements[index];
  const previous = elements[index - 1];
  if (!element || !previous || index !== elements.length - 1) return undefined;
  return text.slice(0, previous.offset + previous.length) + text.slice(element.offset + element.length);
}

/** Whether a parsed value is a plain JSON object. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
