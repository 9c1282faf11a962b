/**
 * Provisioning OpenCode, shared by `scripts/postinstall.mjs` and `agent-tracker setup`: the plugin
 * folder, its entry in the global config, skills, agents and the AGENTS.md section. Each step runs
 * on its own: one failing (say, an opencode.json that does not parse) never stops the others.
 */
import path from 'node:path';
import { opencodeConfigDir } from '../core/config.js';
import { installAgentsMd } from './agents-md.js';
import { installAgents } from './agents.js';
import { configFolderProblem, createContext } from './context.js';
import type { ProvisionContext } from './context.js';
import { packageRoot } from './package-root.js';
import { cliCommand } from './cli-location.js';
import { registerPlugin } from './plugin-entry.js';
import { installPluginFolder } from './plugin-folder.js';
import { installSkills } from './skills.js';
import { installCommands } from './commands.js';
import type { StepName, StepResult } from './step.js';

export type { StepName, StepResult, StepStatus } from './step.js';

export interface ProvisionOptions {
  /** Defaults to `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`. */
  configDir?: string;
  /** The package to install from; defaults to the one this code belongs to. */
  root?: string;
  dryRun?: boolean;
  now?: Date;
  /** Only what goes into the config folder beside the plugin (skills, agents, AGENTS.md, commands): not the plugin folder or entry. */
  contentOnly?: boolean;
  /** Items (ids from items.ts) to leave out: the user removed them after setup added them. */
  skipItems?: ReadonlySet<string>;
}

export interface ProvisionReport {
  configDir: string;
  packageRoot: string;
  dryRun: boolean;
  steps: StepResult[];
  /** Backups made before changing a file: original path → backup path. */
  backups: { file: string; backup: string }[];
}

const STEPS: readonly [StepName, (context: ProvisionContext, root: string) => StepResult][] = [
  ['plugin-folder', installPluginFolder],
  ['plugin-entry', (context) => registerPlugin(context)],
  ['skills', installSkills],
  ['agents', installAgents],
  ['agents-md', installAgentsMd],
  ['commands', installCommands],
];

/** The steps that install the plugin itself; the plugin provisioning itself leaves them out (OpenCode loads it already). */
const PACKAGE_STEPS: ReadonlySet<StepName> = new Set(['plugin-folder', 'plugin-entry']);

/** No one is there to read details: CI, `NONINTERACTIVE`, or stdin is not a terminal. */
export function isInteractive(env: NodeJS.ProcessEnv = process.env, stdinIsTTY = Boolean(process.stdin.isTTY)): boolean {
  return !env.CI && !env.NONINTERACTIVE && stdinIsTTY;
}

/** Runs every step; never throws for a step's failure (it is in the report). */
export function provision(options: ProvisionOptions = {}): ProvisionReport {
  const configDir = path.resolve(options.configDir ?? opencodeConfigDir());
  const root = options.root ?? packageRoot();
  const context = createContext(configDir, {
    dryRun: options.dryRun ?? false,
    ...(options.now ? { now: options.now } : {}),
    ...(options.skipItems ? { skipItems: options.skipItems } : {}),
  });
  // A folder that cannot be written fails every step the same way: say it once, with the fix.
  const blocked = configFolderProblem(configDir);
  if (blocked) return { configDir, packageRoot: root, dryRun: context.dryRun, steps: [{ step: 'config-folder', status: 'failed', messages: [blocked] }], backups: [] };
  const chosen = options.contentOnly ? STEPS.filter(([step]) => !PACKAGE_STEPS.has(step)) : STEPS;
  const steps = chosen.map(([step, run]): StepResult => {
    try {
      return run(context, root);
    } catch (error) {
      return { step, status: 'failed', messages: [(error as Error).message] };
    }
  });
  const backups = [...context.backups].map(([file, backup]) => ({ file, backup }));
  return { configDir, packageRoot: root, dryRun: context.dryRun, steps, backups };
}

/** The one command to try after setting up, and how to run it where `agent-tracker` is not on PATH. */
function tryNext(root: string): string {
  return `Try next: agent-tracker recommend   (not on your PATH? ${cliCommand(root)} recommend)`;
}

/** The report for people: full detail when someone is watching, a summary line otherwise; failures go to `err`. */
export function formatReport(report: ProvisionReport, interactive: boolean): { out: string; err: string } {
  const failed = report.steps.filter((step) => step.status === 'failed');
  const changed = report.steps.filter((step) => step.status === 'changed').length;
  const err = failed.map((step) => `agent-tracker setup: ${step.step} failed: ${step.messages.join('; ')}`).join('\n');
  const heading = `agent-tracker setup${report.dryRun ? ' (dry run: nothing was written)' : ''}: ${report.configDir}`;
  const next = tryNext(report.packageRoot);
  if (!interactive) {
    const summary = `${heading} — ${changed} changed, ${report.steps.length - changed - failed.length} unchanged, ${failed.length} failed`;
    const provisioned = report.steps.filter((step) => step.status === 'changed').map((step) => step.step);
    const lines = [summary, ...(provisioned.length > 0 ? [`  ${report.dryRun ? 'would provision' : 'provisioned'}   ${provisioned.join(', ')}`] : [])];
    for (const { backup } of report.backups) lines.push(`  backup        ${backup}`);
    return { out: [...lines, next].join('\n'), err };
  }
  const lines = [heading];
  for (const step of report.steps) {
    if (step.status === 'failed') continue;
    for (const message of step.messages) lines.push(`  ${step.step.padEnd(14)}${step.status.padEnd(11)}${message}`);
  }
  for (const { file, backup } of report.backups) lines.push(`  backup        ${file} -> ${backup}`);
  if (changed > 0 && !report.dryRun) lines.push('Restart OpenCode to load the changes.');
  lines.push(next);
  return { out: lines.join('\n'), err };
}
