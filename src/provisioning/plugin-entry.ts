/**
 * Registers the plugin folder once in the global config's `"plugin"` array. Entries for older
 * copies of this plugin (a source checkout as a `file://` URL or path, the npm name) are folded into
 * that one entry; options the user gave any of them are kept.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProvisionContext } from './context.js';
import { openGlobalConfig, saveGlobalConfig } from './global-config.js';
import { editJsonc, isJsonObject, isOurPluginSpec } from './opencode-json.js';
import { PACKAGE_NAME } from './package-root.js';
import { decideShape, opencodeMajorVersion } from './host-version.js';
import { PLUGIN_FOLDER } from './plugin-folder.js';
import { registerPluginV2 } from './plugin-entry-v2.js';
import type { StepResult } from './step.js';

/** The entry's spec: relative to the config file, which is how OpenCode resolves it. */
export const PLUGIN_SPEC = `./${PLUGIN_FOLDER.split(path.sep).join('/')}`;

/** The spec of a `"plugin"` entry (`"spec"` or `["spec", {options}]`). */
export function specOf(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (Array.isArray(entry) && typeof entry[0] === 'string') return entry[0];
  return undefined;
}

function optionsOf(entry: unknown): Record<string, unknown> | undefined {
  return Array.isArray(entry) && isJsonObject(entry[1]) ? entry[1] : undefined;
}

/** The local path a spec names (`file://` URL, absolute or `./relative` path), if it names one. */
function localPathOf(spec: string, configDir: string): string | undefined {
  try {
    if (spec.startsWith('file:')) return fileURLToPath(spec);
  } catch {
    return undefined;
  }
  if (path.isAbsolute(spec)) return spec;
  if (spec.startsWith('./') || spec.startsWith('../')) return path.resolve(configDir, spec);
  return undefined;
}

/** Whether the nearest package.json at or above `target` is this package's (a source checkout). */
function isInsideThisPackage(target: string): boolean {
  for (let dir = path.resolve(target); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME;
      } catch {
        return false;
      }
    }
    if (path.dirname(dir) === dir) return false;
  }
}

/** Whether a spec is the provisioned plugin folder, however it is written. */
export function isProvisionedSpec(spec: string, configDir: string): boolean {
  const local = localPathOf(spec, configDir);
  return spec === PLUGIN_SPEC || (local !== undefined && path.resolve(local) === path.join(configDir, PLUGIN_FOLDER));
}

/** Whether a spec loads this plugin: the provisioned folder, an old checkout, or the npm package. */
export function isThisPlugin(spec: string, configDir: string): boolean {
  if (isOurPluginSpec(spec) || isProvisionedSpec(spec, configDir)) return true;
  const local = localPathOf(spec, configDir);
  return local !== undefined && isInsideThisPackage(local);
}

/** Options of this plugin's version-1 entry, to carry into a version-2 entry. */
function v1OptionsOf(plugins: unknown, configDir: string): { v1Options?: Record<string, unknown> } {
  if (!Array.isArray(plugins)) return {};
  for (const entry of plugins) {
    const spec = specOf(entry);
    const options = optionsOf(entry);
    if (spec !== undefined && options && isThisPlugin(spec, configDir)) return { v1Options: options };
  }
  return {};
}

/** Makes the provisioned folder the one entry for this plugin in the global config, in the shape the user's OpenCode reads. */
export function registerPlugin(context: ProvisionContext): StepResult {
  const editable = openGlobalConfig(context);
  // OpenCode 2 reads "plugins" ({ package, options }); version 1 reads "plugin" ([spec, options]).
  const decision = context.configShape ? { shape: context.configShape, because: 'the running OpenCode says so' } : decideShape(editable.config, opencodeMajorVersion());
  if (decision.shape === 'v2') {
    return registerPluginV2(context, editable, {
      spec: PLUGIN_SPEC,
      isThisPlugin: (spec) => isThisPlugin(spec, context.configDir),
      because: decision.because,
      ...v1OptionsOf(editable.config.plugin, context.configDir),
    });
  }
  const plugins = editable.config.plugin;
  if (plugins !== undefined && !Array.isArray(plugins)) {
    throw new Error(`"plugin" in ${editable.file} is not a list; it was left untouched. Make it a list, then run "agent-tracker setup".`);
  }
  const list: unknown[] = plugins ?? [];
  const ours = list.flatMap((entry, index) => {
    const spec = specOf(entry);
    return spec !== undefined && isThisPlugin(spec, context.configDir) ? [index] : [];
  });
  const messages: string[] = [];
  let text = editable.text;
  const first = ours[0];
  if (first === undefined) {
    text = plugins === undefined ? editJsonc(text, ['plugin'], [PLUGIN_SPEC], 0) : editJsonc(text, ['plugin', 0], PLUGIN_SPEC, 0);
    messages.push(`registered "${PLUGIN_SPEC}" in ${editable.file}`);
  } else {
    const kept = list[first];
    const carried = optionsOf(kept) ?? ours.map((index) => optionsOf(list[index])).find((options) => options !== undefined);
    // Later indices first, so the earlier ones stay where they are.
    for (const index of [...ours.slice(1)].reverse()) {
      text = editJsonc(text, ['plugin', index], undefined);
      messages.push(`removed "${specOf(list[index])}" (another copy of this plugin) from ${editable.file}`);
    }
    const keptSpec = specOf(kept) as string;
    const newSpec = isProvisionedSpec(keptSpec, context.configDir) ? keptSpec : PLUGIN_SPEC;
    if (newSpec !== keptSpec) messages.push(`replaced "${keptSpec}" with "${PLUGIN_SPEC}" in ${editable.file}`);
    if (carried && !optionsOf(kept)) {
      text = editJsonc(text, ['plugin', first], [newSpec, carried]);
      messages.push('kept your plugin options on the entry');
    } else if (newSpec !== keptSpec) {
      // Only the spec string changes, so the options' own text (and comments) stay as they are.
      text = editJsonc(text, Array.isArray(kept) ? ['plugin', first, 0] : ['plugin', first], newSpec);
    }
    if (messages.length === 0) messages.push(`"${keptSpec}" is registered in ${editable.file}`);
  }
  const changed = saveGlobalConfig(context, editable, text);
  return { step: 'plugin-entry', status: changed ? 'changed' : 'unchanged', messages };
}
