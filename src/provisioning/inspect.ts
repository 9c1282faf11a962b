/** What provisioning has put in place in a config folder, for `agent-tracker doctor`. Reads only. */
import fs from 'node:fs';
import path from 'node:path';
import { AGENTS_MD, mergeSection, TRACK_AGENTS_FILE } from './agents-md.js';
import { readShippedAgents } from './agents.js';
import { findConfigFile, isJsonObject, parseJsonc } from './opencode-json.js';
import { packageRoot } from './package-root.js';
import { isProvisionedSpec, isThisPlugin, specOf } from './plugin-entry.js';
import { PLUGIN_FOLDER } from './plugin-folder.js';
import { shippedSkills, userHasSkill } from './skills.js';
import { inspectManagedInstall, isManagedSpec, opencodeCacheDir } from './opencode-managed.js';
import type { ManagedInstallState } from './opencode-managed.js';

export type AgentsMdState = 'current' | 'outdated' | 'no-section' | 'no-file' | 'malformed';

export interface ProvisioningState {
  configDir: string;
  configFile: string | null;
  /** Why the global config could not be read, if it could not. */
  configError: string | null;
  /** `missing`: runtime dependencies of the package that the folder's node_modules lacks (then OpenCode cannot load it). */
  pluginFolder: { path: string; present: boolean; version: string | null; missing: string[] };
  /** Specs in the `"plugin"` array that load this plugin. */
  pluginEntries: string[];
  /** Exactly one entry loads this plugin, and it is the provisioned folder. */
  registered: boolean;
  skills: Record<string, boolean>;
  agents: Record<string, boolean>;
  agentsMd: AgentsMdState;
  /** Installed the OpenCode way (a package spec in `"plugin"`): the spec and OpenCode's install of it. */
  managed: { spec: string; install: ManagedInstallState } | null;
}

function pluginVersion(folder: string): string | null {
  try {
    const manifest: unknown = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
    return isJsonObject(manifest) && typeof manifest.version === 'string' ? manifest.version : null;
  } catch {
    return null;
  }
}

/** The runtime dependencies of the package at `root` that the plugin folder's own node_modules does not hold. */
function missingDependencies(folder: string, root: string): string[] {
  if (!fs.existsSync(path.join(folder, 'package.json'))) return [];
  try {
    const manifest: unknown = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    const dependencies = isJsonObject(manifest) && isJsonObject(manifest.dependencies) ? Object.keys(manifest.dependencies) : [];
    return dependencies.filter((name) => !fs.existsSync(path.join(folder, 'node_modules', name, 'package.json')));
  } catch {
    return [];
  }
}

/** Names the package ships; none when its files cannot be read (doctor reports, never fails). */
function shipped(names: () => string[]): string[] {
  try {
    return names();
  } catch {
    return [];
  }
}

function agentsMdState(configDir: string, root: string): AgentsMdState {
  const file = path.join(configDir, AGENTS_MD);
  if (!fs.existsSync(file)) return 'no-file';
  try {
    const merged = mergeSection(fs.readFileSync(file, 'utf8'), fs.readFileSync(path.join(root, TRACK_AGENTS_FILE), 'utf8'));
    return merged.action === 'unchanged' ? 'current' : merged.action === 'appended' ? 'no-section' : 'outdated';
  } catch {
    return 'malformed';
  }
}

/** Inspects `configDir` against the package at `root` (default: this package). */
export function inspectProvisioning(configDir: string, root: string = packageRoot(), cacheDir: string = opencodeCacheDir()): ProvisioningState {
  const configFile = findConfigFile(configDir) ?? null;
  let config: Record<string, unknown> = {};
  let configError: string | null = null;
  if (configFile) {
    try {
      const parsed = parseJsonc(fs.readFileSync(configFile, 'utf8'), configFile);
      if (isJsonObject(parsed)) config = parsed;
      else configError = `${configFile} is not a JSON object`;
    } catch (error) {
      configError = (error as Error).message;
    }
  }
  const plugins = Array.isArray(config.plugin) ? config.plugin : [];
  const pluginEntries = plugins.map(specOf).filter((spec): spec is string => spec !== undefined && isThisPlugin(spec, configDir));
  const folder = path.join(configDir, PLUGIN_FOLDER);
  const agentSection = isJsonObject(config.agent) ? config.agent : {};
  const managedSpec = pluginEntries.find(isManagedSpec);
  return {
    configDir,
    configFile,
    configError,
    pluginFolder: { path: folder, present: fs.existsSync(path.join(folder, 'package.json')), version: pluginVersion(folder), missing: missingDependencies(folder, root) },
    pluginEntries,
    registered: pluginEntries.length === 1 && isProvisionedSpec(pluginEntries[0] as string, configDir),
    skills: Object.fromEntries(shipped(() => shippedSkills(root)).map((name) => [name, userHasSkill(configDir, name)])),
    agents: Object.fromEntries(shipped(() => Object.keys(readShippedAgents(root))).map((name) => [name, Object.hasOwn(agentSection, name)])),
    agentsMd: agentsMdState(configDir, root),
    managed: managedSpec === undefined ? null : { spec: managedSpec, install: inspectManagedInstall(cacheDir) },
  };
}

function listState(items: Record<string, boolean>): string {
  return Object.entries(items)
    .map(([name, present]) => `${name} ${present ? 'yes' : 'MISSING'}`)
    .join(', ');
}

/** What a plugin folder without some of its dependencies needs, or nothing when it has them all. */
function incomplete(missing: readonly string[]): string {
  return missing.length === 0 ? '' : ` INCOMPLETE: ${missing.join(', ')} missing, so OpenCode cannot load it (run "agent-tracker setup" from the installed package)`;
}

/** The state as text lines for `agent-tracker doctor`, each problem with what to run. */
export function describeProvisioning(state: ProvisioningState): string[] {
  if (state.managed) return describeManaged(state, state.managed);
  const folder = state.pluginFolder;
  const fix = ' (run "agent-tracker setup")';
  const registration = state.registered
    ? 'registered once'
    : state.pluginEntries.length === 0
      ? `not registered${fix}`
      : `${state.pluginEntries.length === 1 ? '1 entry' : `${state.pluginEntries.length} entries`}: ${state.pluginEntries.join(', ')}${fix}`;
  return [
    'provisioning',
    `  config folder  ${state.configDir}`,
    `  config file    ${state.configFile ?? 'none'}${state.configError ? ` — ${state.configError}` : ''}`,
    `  plugin folder  ${folder.present ? `${folder.path} (version ${folder.version ?? 'unknown'})${incomplete(folder.missing)}` : `missing${fix}`}`,
    `  plugin entry   ${registration}`,
    `  skills         ${listState(state.skills)}`,
    `  agents         ${listState(state.agents)}`,
    `  AGENTS.md      ${state.agentsMd}${state.agentsMd === 'current' ? '' : fix}`,
  ];
}

function describeInstall(install: ManagedInstallState): string {
  switch (install.state) {
    case 'installed':
      return `${install.packageDir} (version ${install.version ?? 'unknown'})`;
    case 'not-installed-yet':
      return 'not installed yet (OpenCode installs it at its next start)';
    case 'half-installed':
      return `HALF-INSTALLED ${install.folder}: ${install.missing.join(', ')} missing, so OpenCode starts WITHOUT the plugin. Fix: ${install.fix}`;
  }
}

/**
 * Installed the OpenCode way: OpenCode owns the entry and the package, and the plugin adds its agents,
 * skills and AGENTS.md section at start. "agent-tracker setup" would replace the entry, so it is not advised.
 */
function describeManaged(state: ProvisioningState, managed: { spec: string; install: ManagedInstallState }): string[] {
  const fix = ' (the plugin adds it at its next start)';
  const others = state.pluginEntries.filter((spec) => spec !== managed.spec);
  return [
    'provisioning',
    `  config folder  ${state.configDir}`,
    `  config file    ${state.configFile ?? 'none'}${state.configError ? ` — ${state.configError}` : ''}`,
    `  plugin entry   OpenCode-managed "${managed.spec}": OpenCode installs and updates it; no "agent-tracker setup" needed (it would replace this entry)`,
    ...(others.length > 0 ? [`  also loaded    ${others.join(', ')}: the plugin is loaded ${others.length + 1} times; remove all but "${managed.spec}" from "plugin"`] : []),
    `  installed      ${describeInstall(managed.install)}`,
    `  skills         ${listState(state.skills)}${Object.values(state.skills).every(Boolean) ? '' : fix}`,
    `  agents         ${listState(state.agents)}${Object.values(state.agents).every(Boolean) ? '' : fix}`,
    `  AGENTS.md      ${state.agentsMd}${state.agentsMd === 'current' ? '' : fix}`,
  ];
}
