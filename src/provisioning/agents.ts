/**
 * The shipped agent definitions (`agents/agents.json`), added to the global config's `"agent"`
 * object. A name the user already has — in `"agent"`, the older `"mode"`, or as a markdown agent
 * file — is left alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { removedByUser } from './context.js';
import type { ProvisionContext } from './context.js';
import { openGlobalConfig, saveGlobalConfig } from './global-config.js';
import { agentItem } from './items.js';
import { editJsonc, isJsonObject } from './opencode-json.js';
import type { StepResult } from './step.js';

/** Where the definitions are shipped, relative to the package root. */
export const AGENTS_FILE = path.join('agents', 'agents.json');
/** Folders (in the config folder) where OpenCode reads agents written as markdown. */
const MARKDOWN_AGENT_FOLDERS = ['agent', 'agents'] as const;

/** The shipped definitions, by agent name; throws when the file is not an object of objects. */
export function readShippedAgents(root: string): Record<string, Record<string, unknown>> {
  const file = path.join(root, AGENTS_FILE);
  const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!isJsonObject(value)) throw new Error(`${file} must be an object of agent definitions`);
  const agents: Record<string, Record<string, unknown>> = {};
  for (const [name, definition] of Object.entries(value)) {
    if (!isJsonObject(definition)) throw new Error(`${file}: agent "${name}" must be an object`);
    agents[name] = definition;
  }
  return agents;
}

/** Whether the user already defines an agent of this name somewhere OpenCode looks. */
export function userHasAgent(config: Record<string, unknown>, configDir: string, name: string): boolean {
  for (const key of ['agent', 'mode'] as const) {
    const section = config[key];
    if (isJsonObject(section) && Object.hasOwn(section, name)) return true;
  }
  return MARKDOWN_AGENT_FOLDERS.some((folder) => fs.existsSync(path.join(configDir, folder, `${name}.md`)));
}

/** Adds each shipped agent the user does not have yet. */
export function installAgents(context: ProvisionContext, root: string): StepResult {
  const agents = readShippedAgents(root);
  const editable = openGlobalConfig(context);
  if (editable.config.agent !== undefined && !isJsonObject(editable.config.agent)) {
    throw new Error(`"agent" in ${editable.file} is not an object; it was left untouched. Fix it, then run "agent-tracker setup".`);
  }
  const messages: string[] = [];
  let text = editable.text;
  let added = 0;
  for (const [name, definition] of Object.entries(agents)) {
    if (userHasAgent(editable.config, context.configDir, name)) {
      messages.push(`agent "${name}" is already there, left as it is`);
      continue;
    }
    if (context.skipItems.has(agentItem(name))) {
      messages.push(removedByUser(`agent "${name}"`));
      continue;
    }
    // In shipped order, ahead of the user's own agents; a new "agent" object goes first in the file.
    text = editable.config.agent === undefined && added === 0 ? editJsonc(text, ['agent'], { [name]: definition }, 0) : editJsonc(text, ['agent', name], definition, added);
    added += 1;
    messages.push(`added agent "${name}" to ${editable.file}`);
  }
  const changed = saveGlobalConfig(context, editable, text);
  return { step: 'agents', status: changed ? 'changed' : 'unchanged', messages };
}
