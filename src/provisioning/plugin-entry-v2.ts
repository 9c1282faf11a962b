/**
 * Registers the plugin folder in OpenCode 2's `"plugins"` list (`{ "package": spec, "options": {...} }`
 * or a bare spec string). Other entries for this plugin are folded into one; options the user gave
 * any of them, or the version-1 `"plugin"` entry of it, are kept on that entry. The version-1 list is
 * left as it is: OpenCode 2 does not read it.
 */
import type { ProvisionContext } from './context.js';
import type { EditableConfig } from './global-config.js';
import { saveGlobalConfig } from './global-config.js';
import { editJsonc, isJsonObject } from './opencode-json.js';
import type { StepResult } from './step.js';

/** The spec of a `"plugins"` entry (`"spec"` or `{ package, options }`). */
export function packageOf(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  return isJsonObject(entry) && typeof entry.package === 'string' ? entry.package : undefined;
}

function optionsOf(entry: unknown): Record<string, unknown> | undefined {
  return isJsonObject(entry) && isJsonObject(entry.options) ? entry.options : undefined;
}

export interface V2EntryRules {
  /** The spec to register. */
  spec: string;
  /** Whether a spec loads this plugin. */
  isThisPlugin: (spec: string) => boolean;
  /** Options of this plugin's version-1 entry, carried over when the version-2 entry has none. */
  v1Options?: Record<string, unknown>;
  /** Why this shape was chosen (shown in the report). */
  because: string;
}

export function registerPluginV2(context: ProvisionContext, editable: EditableConfig, rules: V2EntryRules): StepResult {
  const plugins = editable.config.plugins;
  if (plugins !== undefined && !Array.isArray(plugins)) {
    throw new Error(`"plugins" in ${editable.file} is not a list; it was left untouched. Make it a list, then run "agent-tracker setup".`);
  }
  const list: unknown[] = plugins ?? [];
  const ours = list.flatMap((entry, index) => {
    const spec = packageOf(entry);
    return spec !== undefined && rules.isThisPlugin(spec) ? [index] : [];
  });
  const messages: string[] = [`writing the OpenCode 2 shape ("plugins"): ${rules.because}`];
  const carried = ours.map((index) => optionsOf(list[index])).find((options) => options !== undefined) ?? rules.v1Options;
  const entry = { package: rules.spec, ...(carried ? { options: carried } : {}) };
  let text = editable.text;
  const first = ours[0];
  if (first === undefined) {
    text = plugins === undefined ? editJsonc(text, ['plugins'], [entry], 0) : editJsonc(text, ['plugins', 0], entry, 0);
    messages.push(`registered "${rules.spec}" in "plugins" of ${editable.file}`);
  } else {
    for (const index of [...ours.slice(1)].reverse()) {
      text = editJsonc(text, ['plugins', index], undefined);
      messages.push(`removed "${packageOf(list[index])}" (another copy of this plugin) from ${editable.file}`);
    }
    const kept = list[first];
    const keptSpec = packageOf(kept) as string;
    if (keptSpec !== rules.spec) {
      text = editJsonc(text, isJsonObject(kept) ? ['plugins', first, 'package'] : ['plugins', first], isJsonObject(kept) ? rules.spec : entry);
      messages.push(`replaced "${keptSpec}" with "${rules.spec}" in ${editable.file}`);
    } else if (carried && !optionsOf(kept)) {
      text = editJsonc(text, ['plugins', first], entry);
      messages.push('kept your plugin options on the entry');
    }
    if (messages.length === 1) messages.push(`"${keptSpec}" is registered in "plugins" of ${editable.file}`);
  }
  const changed = saveGlobalConfig(context, editable, text);
  return { step: 'plugin-entry', status: changed ? 'changed' : 'unchanged', messages };
}
