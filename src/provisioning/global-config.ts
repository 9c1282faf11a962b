/** The global config file as one step edits it: found (or started), parsed, and written back. */
import { readText, writeText } from './context.js';
import type { ProvisionContext } from './context.js';
import { configFileForEdit, isJsonObject, newConfigText, parseJsonc } from './opencode-json.js';

export interface EditableConfig {
  file: string;
  /** The text as it is now (a new file's starting text when there is none). */
  text: string;
  config: Record<string, unknown>;
}

/** The config to edit; throws (and nothing is written) when the file does not parse or is not an object. */
export function openGlobalConfig(context: ProvisionContext): EditableConfig {
  const file = configFileForEdit(context.configDir);
  const text = readText(context, file) ?? newConfigText();
  let config: unknown;
  try {
    config = parseJsonc(text, file);
  } catch (error) {
    throw new Error(`${(error as Error).message}; it was left untouched. Fix it, then run "agent-tracker setup".`);
  }
  if (!isJsonObject(config)) throw new Error(`${file} is not a JSON object; it was left untouched. Fix it, then run "agent-tracker setup".`);
  return { file, text, config };
}

/** Writes the edited text back (backup first, atomic); no edit writes nothing, not even a new file, and an edit that does not parse is refused. */
export function saveGlobalConfig(context: ProvisionContext, editable: EditableConfig, text: string): boolean {
  if (text === editable.text) return false;
  // An edit that broke the file would stop OpenCode from starting: keep the file as it was instead.
  try {
    parseJsonc(text, editable.file);
  } catch (error) {
    throw new Error(`${(error as Error).message} once edited, so it was left untouched; edit it by hand, then run "agent-tracker setup".`);
  }
  return writeText(context, editable.file, text);
}
