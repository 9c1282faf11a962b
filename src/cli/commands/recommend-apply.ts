/**
 * `recommend --apply`: writes each role's pick into the `"agent"` section of the project's (or the
 * global) opencode.json/opencode.jsonc, after showing the change as a diff and asking. Roles whose
 * answer is a close call or rests on thin evidence are left alone unless `--include-uncertain`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Recommendation, RoleRecommendation } from '../../core/report/recommend.js';
import { describeConfidence } from '../../core/report/recommend-text.js';
import { lineDiff, planAgentModels } from '../../provisioning/agent-models.js';
import type { AgentModelChange, AgentSectionKey } from '../../provisioning/agent-models.js';
import { decideShape, opencodeMajorVersion } from '../../provisioning/host-version.js';
import { findConfigFile, isJsonObject, newConfigText, parseJsonc } from '../../provisioning/opencode-json.js';
import { replaceFile } from '../../provisioning/replace-file.js';
import { CliError } from '../context.js';

export interface ApplyOptions {
  /** The config folder: the project folder, or the global OpenCode config folder. */
  configDir: string;
  dryRun: boolean;
  yes: boolean;
  includeUncertain: boolean;
  now: Date;
  /** The major version of the OpenCode on PATH, when the caller looked (`opencodeMajorVersion`); else the config file decides. */
  opencodeMajor?: number;
  /** Where the old text is kept (the backups folder of the OpenCode config folder, never the project). */
  backupDir: string;
}

/** How to ask the user; `interactive` false means there is nobody to ask. */
export interface Prompt {
  interactive: boolean;
  confirm(question: string): Promise<boolean>;
}

export interface ApplyResult {
  file: string;
  changes: AgentModelChange[];
  /** Roles left as they are, and why. */
  skipped: { agent: string; reason: string }[];
  diff: string[];
  written: boolean;
  backup: string | null;
  /** Why nothing was written when there were changes: "dry run", "no terminal", "declined". */
  notWritten?: string;
}

function skipReason(role: RoleRecommendation): string {
  if ((role.confidence === 'clear' || role.confidence === 'likely') && !role.thinEvidence && role.caveat) return `${role.pick.model} is uncertain: ${role.caveat}`;
  // The confidence says "close call", "nothing to compare it with" or "thin evidence" itself.
  return `${role.pick.model} is not sure enough to write: ${describeConfidence(role)}`;
}

/** `"agents"` when the user's OpenCode is version 2 (host-version.ts decides), else `"agent"`; never both. */
function agentSectionFor(text: string, file: string, major: number | undefined): AgentSectionKey {
  let config: unknown;
  try {
    config = parseJsonc(text, file);
  } catch {
    return 'agent'; // planAgentModels reports the parse error
  }
  return isJsonObject(config) && decideShape(config, major).shape === 'v2' ? 'agents' : 'agent';
}

/** Works out the edit; throws a CliError (nothing written) when the config cannot be edited. */
export function planApply(recommendation: Recommendation, options: ApplyOptions): { result: ApplyResult; text: string; before: string | undefined } {
  const file = findConfigFile(options.configDir) ?? path.join(options.configDir, 'opencode.json');
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  const skipped: ApplyResult['skipped'] = [];
  const picks = recommendation.roles.flatMap((role) => {
    if (role.certain || options.includeUncertain) return [{ agent: role.agent, model: role.pick.model }];
    skipped.push({ agent: role.agent, reason: skipReason(role) });
    return [];
  });
  const original = before ?? newConfigText();
  let plan;
  try {
    plan = planAgentModels(original, file, picks, agentSectionFor(original, file, options.opencodeMajor));
  } catch (error) {
    throw new CliError(`${(error as Error).message}; it was left untouched. Fix it, then run "agent-tracker recommend --apply" again.`);
  }
  const diff = plan.changes.length > 0 ? lineDiff(before ?? '', plan.text) : [];
  return { result: { file, changes: plan.changes, skipped, diff, written: false, backup: null }, text: plan.text, before };
}

/** Plans, shows nothing itself, asks when it may, and writes. */
export async function applyRecommendation(recommendation: Recommendation, options: ApplyOptions, prompt: Prompt, show: (lines: string[]) => void): Promise<ApplyResult> {
  // The OpenCode on PATH tells which config shape it reads; looked up once, only when applying.
  const opencodeMajor = options.opencodeMajor ?? opencodeMajorVersion();
  const { result, text, before } = planApply(recommendation, { ...options, ...(opencodeMajor !== undefined ? { opencodeMajor } : {}) });
  show(describePlan(result));
  if (result.changes.length === 0) return result;
  if (options.dryRun) return { ...result, notWritten: 'dry run' };
  if (!options.yes) {
    if (!prompt.interactive) return { ...result, notWritten: 'no terminal' };
    if (!(await prompt.confirm(`Write these changes to ${result.file}? [y/N] `))) return { ...result, notWritten: 'declined' };
  }
  fs.mkdirSync(path.dirname(result.file), { recursive: true });
  const backup = replaceFile(result.file, text, before, options.now, options.backupDir);
  return { ...result, written: true, backup };
}

/** What would change, for the terminal. */
export function describePlan(result: ApplyResult): string[] {
  const lines = ['', `Apply to ${result.file}:`];
  for (const skip of result.skipped) lines.push(`  left ${skip.agent} as it is: ${skip.reason} (--include-uncertain writes it anyway)`);
  if (result.changes.length === 0) {
    lines.push(result.skipped.length > 0 ? '  nothing else to change: every other role already uses its pick.' : '  nothing to change: the config already uses this setup.');
    return lines;
  }
  for (const change of result.changes) lines.push(`  ${change.agent}: ${change.from ?? '(default model)'} -> ${change.to}`);
  lines.push('', ...result.diff);
  return lines;
}

/** The last line: what happened. */
export function describeOutcome(result: ApplyResult): string | undefined {
  if (result.written) {
    const backup = result.backup ? ` (backup: ${result.backup})` : '';
    return `Wrote ${result.file}${backup}. Restart OpenCode to use the new setup.`;
  }
  switch (result.notWritten) {
    case 'dry run':
      return 'Dry run: nothing written.';
    case 'no terminal':
      return 'No terminal to ask, so nothing was written (a dry run). Run again with --yes to write it.';
    case 'declined':
      return 'Nothing written.';
    default:
      return undefined;
  }
}
