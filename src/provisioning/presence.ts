/**
 * Which of the things setup provisions into a config folder are there now, item by item: the shipped
 * agents, skills, slash commands and the AGENTS.md section. Reads only, and only small files (the
 * global config, AGENTS.md, a few folder listings), so the plugin can check at every start without
 * loading the setup steps themselves.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AGENTS_MD, BEGIN_PREFIX } from './agents-md.js';
import { readShippedAgents, userHasAgent } from './agents.js';
import { AGENTS_MD_ITEM, agentItem, commandItem, skillItem } from './items.js';
import { findConfigFile, isJsonObject, parseJsonc } from './opencode-json.js';
import { shippedSkills, userHasSkill } from './skills.js';

/** One provisioned item: its id (items.ts), how a person reads it, and whether it is in place. */
export interface ItemPresence {
  id: string;
  label: string;
  present: boolean;
}

/** Where slash commands are shipped (package root), and the folders OpenCode reads them from (config folder). */
const COMMANDS_FOLDER = 'commands';
const COMMAND_FOLDERS = ['command', 'commands'] as const;
const COMMAND_EXTENSION = '.md';

/** The global config as parsed; an unreadable one counts as empty (the agents step then reports why). */
function readGlobalConfig(configDir: string): Record<string, unknown> {
  const file = findConfigFile(configDir);
  if (!file) return {};
  try {
    const parsed = parseJsonc(fs.readFileSync(file, 'utf8'), file);
    return isJsonObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** Whether AGENTS.md is a file holding the tracker's section (any version of it). */
function hasAgentsMdSection(configDir: string): boolean {
  const file = path.join(configDir, AGENTS_MD);
  try {
    return fs.statSync(file).isFile() && fs.readFileSync(file, 'utf8').includes(BEGIN_PREFIX);
  } catch {
    return false;
  }
}

/** The names of the shipped slash commands (`commands/NAME.md`); none when the package ships none. */
function shippedCommands(root: string): string[] {
  const dir = path.join(root, COMMANDS_FOLDER);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(COMMAND_EXTENSION))
    .map((name) => name.slice(0, -COMMAND_EXTENSION.length))
    .sort();
}

function hasCommand(configDir: string, name: string): boolean {
  return COMMAND_FOLDERS.some((folder) => fs.existsSync(path.join(configDir, folder, `${name}${COMMAND_EXTENSION}`)));
}

/** Every item the package at `root` provisions, and whether `configDir` has it now. */
export function inspectItems(configDir: string, root: string): ItemPresence[] {
  const config = readGlobalConfig(configDir);
  return [
    ...Object.keys(readShippedAgents(root)).map((name) => ({ id: agentItem(name), label: `agent ${name}`, present: userHasAgent(config, configDir, name) })),
    ...shippedSkills(root).map((name) => ({ id: skillItem(name), label: `skill ${name}`, present: userHasSkill(configDir, name) })),
    ...shippedCommands(root).map((name) => ({ id: commandItem(name), label: `command /${name}`, present: hasCommand(configDir, name) })),
    { id: AGENTS_MD_ITEM, label: 'the scoring rules in AGENTS.md', present: hasAgentsMdSection(configDir) },
  ];
}
