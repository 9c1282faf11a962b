/**
 * The shipped skills (`skills/<name>/SKILL.md`), copied to `<config>/skills/<name>/`. A skill folder
 * the user already has (in `skills/` or the older `skill/`) is never touched.
 */
import fs from 'node:fs';
import path from 'node:path';
import { removedByUser, replaceFolder } from './context.js';
import { skillItem } from './items.js';
import type { ProvisionContext } from './context.js';
import type { StepResult } from './step.js';

/** Where skills are shipped (package root) and installed (config folder). */
export const SKILLS_FOLDER = 'skills';
/** The older folder name OpenCode also reads skills from. */
const LEGACY_SKILLS_FOLDER = 'skill';
export const SKILL_FILE = 'SKILL.md';

/** The names of the shipped skills: the folders of `skills/` holding a SKILL.md. */
export function shippedSkills(root: string): string[] {
  const dir = path.join(root, SKILLS_FOLDER);
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, SKILL_FILE)))
    .map((entry) => entry.name)
    .sort();
}

/** Whether the user already has a skill folder of this name. */
export function userHasSkill(configDir: string, name: string): boolean {
  return [SKILLS_FOLDER, LEGACY_SKILLS_FOLDER].some((folder) => fs.existsSync(path.join(configDir, folder, name)));
}

/** Copies each shipped skill the user does not have yet. */
export function installSkills(context: ProvisionContext, root: string): StepResult {
  const messages: string[] = [];
  let changed = false;
  for (const name of shippedSkills(root)) {
    const target = path.join(context.configDir, SKILLS_FOLDER, name);
    if (userHasSkill(context.configDir, name)) {
      messages.push(`skill "${name}" is already there, left as it is`);
      continue;
    }
    if (context.skipItems.has(skillItem(name))) {
      messages.push(removedByUser(`skill "${name}"`));
      continue;
    }
    replaceFolder(context, target, (folder) => fs.cpSync(path.join(root, SKILLS_FOLDER, name), folder, { recursive: true }));
    messages.push(`installed skill "${name}" in ${target}`);
    changed = true;
  }
  return { step: 'skills', status: changed ? 'changed' : 'unchanged', messages };
}
