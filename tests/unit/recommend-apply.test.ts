/**
 * `recommend --apply`: the config edit (comments and formatting kept, idempotent), the diff, the
 * backup and atomic replace (a symlink is replaced, not followed), and the ask / dry-run / --yes flow
 * on real files in temporary folders.
 */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { applyRecommendation, describeOutcome, planApply } from '../../src/cli/commands/recommend-apply.js';
import type { ApplyOptions, Prompt } from '../../src/cli/commands/recommend-apply.js';
import { CliError } from '../../src/cli/context.js';
import { recommendSetups } from '../../src/core/report/recommend.js';
import type { Recommendation } from '../../src/core/report/recommend.js';
import { lineDiff, planAgentModels } from '../../src/provisioning/agent-models.js';
import { replaceFile } from '../../src/provisioning/replace-file.js';
import { backupPath, listBackups } from '../../src/provisioning/backups.js';
import { profile } from '../helpers/synthetic-history.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { usageRecord } from '../helpers/usage-record.js';

const tempDir = useTempDirs('agent-tracker-apply-');

const COMMENTED = `// my OpenCode config
{
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet", // the default
  "agent": {
    // the builder
    "build": { "model": "old/model", "temperature": 0.2 },
    "plan": {
      "model": "openai/gpt-5"
    }
  }
}
`;

describe('planAgentModels', () => {
  it('sets only the model, keeping comments, other settings and formatting', () => {
    const plan = planAgentModels(COMMENTED, 'opencode.jsonc', [{ agent: 'build', model: 'new/model' }]);
    expect(plan.changes).toEqual([{ agent: 'build', from: 'old/model', to: 'new/model' }]);
    expect(plan.text).toBe(COMMENTED.replace('"old/model"', '"new/model"'));
  });

  it('changes nothing when the config already uses the model', () => {
    const plan = planAgentModels(COMMENTED, 'opencode.jsonc', [{ agent: 'plan', model: 'openai/gpt-5' }]);
    expect(plan).toEqual({ text: COMMENTED, changes: [] });
  });

  it.each([
    ['an empty config', '{}\n', { agent: { review: { model: 'm/r' } } }],
    ['a config without agents', '{\n  "model": "x/y"\n}\n', { model: 'x/y', agent: { review: { model: 'm/r' } } }],
    ['an agent section without this agent', '{\n  "agent": {\n    "build": { "model": "a/b" }\n  }\n}\n', { agent: { build: { model: 'a/b' }, review: { model: 'm/r' } } }],
    ['an agent without a model', '{ "agent": { "review": { "temperature": 0.1 } } }', { agent: { review: { temperature: 0.1, model: 'm/r' } } }],
  ])('adds what is missing to %s', (_name, text, expected) => {
    const plan = planAgentModels(text, 'opencode.json', [{ agent: 'review', model: 'm/r' }]);
    expect(JSON.parse(plan.text)).toEqual(expected);
    expect(plan.changes).toEqual([{ agent: 'review', from: null, to: 'm/r' }]);
    // The same answer again changes nothing.
    expect(planAgentModels(plan.text, 'opencode.json', [{ agent: 'review', model: 'm/r' }]).changes).toEqual([]);
  });

  it.each([
    ['a new agent', '{\n  "agent": {\n    "build": { "model": "a/b" } // keep me here\n  }\n}\n', 'docs', '    "build": { "model": "a/b" } // keep me here'],
    ['a new agent section', '{\n  "model": "x/y" // the default\n}\n', 'docs', '  "model": "x/y" // the default'],
    ['a model for an agent without one', '{\n  "agent": {\n    "build": { "temperature": 0.2 } // keep me here\n  }\n}\n', 'build', '    } // keep me here'],
  ])('adds %s first, so the last line keeps its trailing comment', (_name, text, agent, line) => {
    const plan = planAgentModels(text, 'opencode.json', [{ agent, model: 'm/new' }]);
    expect(plan.text.split('\n')).toContain(line);
    expect(plan.changes).toEqual([{ agent, from: null, to: 'm/new' }]);
  });

  it.each([
    ['does not parse', '{ "agent": ', /opencode\.json does not parse/],
    ['is not an object', '[1, 2]', /opencode\.json is not a JSON object/],
    ['has an agent section that is not an object', '{ "agent": "build" }', /"agent" in opencode\.json is not an object/],
    ['has an agent entry that is not an object', '{ "agent": { "review": "m/x" } }', /"agent"\."review" in opencode\.json is not an object/],
  ])('refuses a config that %s', (_name, text, message) => {
    expect(() => planAgentModels(text, 'opencode.json', [{ agent: 'review', model: 'm/r' }])).toThrow(message);
  });
});

describe('lineDiff', () => {
  it.each([
    ['no change', 'a\nb\nc', 'a\nb\nc', []],
    ['one line changed, with two lines of context', 'a\nb\nc\nd\ne\nf\ng', 'a\nb\nc\nD\ne\nf\ng', ['  b', '  c', '- d', '+ D', '  e', '  f']],
    ['a line added at the end', 'a\nb', 'a\nb\nc', ['  a', '  b', '+ c']],
    ['a new file', '', '{\n}', ['- ', '+ {', '+ }']],
    ['a line removed at the start', 'x\na', 'a', ['- x', '  a']],
  ])('%s', (_name, before, after, expected) => {
    expect(lineDiff(before, after)).toEqual(expected);
  });
});

describe('replaceFile', () => {
  const NOW = new Date('2026-02-23T10:15:00.123Z');

  // A backup beside a project's opencode.json was committed by the next `git add -A`: they go to the backups folder.
  it('backs up the old text in the backups folder, not beside the file, then replaces the file, keeping its mode', () => {
    const dir = tempDir();
    const backups = path.join(tempDir(), 'agent-tracker-backups');
    const file = path.join(dir, 'opencode.json');
    fs.writeFileSync(file, 'old', { mode: 0o600 });
    const backup = replaceFile(file, 'new', 'old', NOW, backups);
    const expected = path.join(backups, `${path.basename(dir)}-opencode.json.agent-tracker-backup-20260223T101500Z`);
    expect(backup).toBe(expected);
    expect(fs.readFileSync(backup as string, 'utf8')).toBe('old');
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual(['opencode.json']);
    expect(listBackups(backups)).toEqual([{ file: expected, size: 3, takenAt: expect.any(String) }]);
    // A second backup in the same second gets a counter.
    expect(backupPath(file, NOW, backups)).toBe(`${expected}-2`);
  });

  it('writes a new file without a backup', () => {
    const dir = tempDir();
    const backups = path.join(dir, 'backups');
    const file = path.join(dir, 'opencode.json');
    expect(replaceFile(file, '{}', undefined, NOW, backups)).toBeNull();
    expect(fs.readdirSync(dir)).toEqual(['opencode.json']);
  });

  it('replaces a symlink at the target instead of writing through it', () => {
    const dir = tempDir();
    const elsewhere = path.join(dir, 'elsewhere.json');
    fs.writeFileSync(elsewhere, 'theirs');
    const file = path.join(dir, 'opencode.json');
    fs.symlinkSync(elsewhere, file);
    replaceFile(file, 'ours', 'theirs', NOW, path.join(dir, 'backups'));
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('ours');
    expect(fs.readFileSync(elsewhere, 'utf8')).toBe('theirs');
  });

  it('does not write through a symlink planted at the backup name', () => {
    const dir = tempDir();
    const victim = path.join(dir, 'victim');
    fs.writeFileSync(victim, 'safe');
    const file = path.join(dir, 'opencode.json');
    fs.writeFileSync(file, 'old');
    const backups = path.join(dir, 'backups');
    const planted = backupPath(file, NOW, backups);
    fs.mkdirSync(backups);
    fs.symlinkSync(victim, planted);
    const backup = replaceFile(file, 'new', 'old', NOW, backups);
    expect(backup).toBe(`${planted}-2`);
    expect(fs.readFileSync(victim, 'utf8')).toBe('safe');
  });
});

/** A real recommendation: build clearly best on one model, review a tie (a close call). */
function recommendation(): Recommendation {
  const usage = [
    ...Array.from({ length: 40 }, () => usageRecord({ agent: 'build', model: 'good/model', commits: 2, userGradedCommits: 2, userGradeSum: 10, toolCalls: 10 })),
    ...Array.from({ length: 40 }, () => usageRecord({ agent: 'build', model: 'poor/model', commits: 2, userGradedCommits: 2, userGradeSum: -2, revertedCommits: 1, toolCalls: 10 })),
    ...Array.from({ length: 20 }, () => usageRecord({ agent: 'review', model: 'tie/one', commits: 1, userGradedCommits: 1, userGradeSum: 2, toolCalls: 10 })),
    ...Array.from({ length: 20 }, () => usageRecord({ agent: 'review', model: 'tie/two', commits: 1, userGradedCommits: 1, userGradeSum: 2, toolCalls: 10 })),
  ];
  return recommendSetups({ target: profile('/p/target', 'rust', 'axum', 'api'), history: { usage }, profiles: new Map(), similarity: () => 1 });
}

const asking = (answer: boolean, asked: string[] = []): Prompt => ({
  interactive: true,
  confirm: async (question) => {
    asked.push(question);
    return answer;
  },
});
const noTerminal: Prompt = { interactive: false, confirm: async () => true };

/** The backups folder of each config folder: a temp folder of its own (outside the config folder, as in use), removed after the test. */
const backupFolders = new Map<string, string>();

function options(configDir: string, overrides: Partial<ApplyOptions> = {}): ApplyOptions {
  const backupDir = backupFolders.get(configDir) ?? path.join(tempDir(), 'backups');
  backupFolders.set(configDir, backupDir);
  return { configDir, dryRun: false, yes: false, includeUncertain: false, now: new Date('2026-02-23T10:15:00Z'), backupDir, ...overrides };
}

describe('applyRecommendation', () => {
  it('leaves a role whose only model has thin evidence, saying why once', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'opencode.json'), '{}');
    const usage = Array.from({ length: 3 }, () => usageRecord({ agent: 'plan', model: 'm/only', toolCalls: 10 }));
    const thin = recommendSetups({ target: profile('/p/target', 'rust', 'axum', 'api'), history: { usage }, profiles: new Map(), similarity: () => 1 });
    const result = await applyRecommendation(thin, options(dir), asking(true), () => undefined);
    expect(result.skipped).toEqual([{ agent: 'plan', reason: 'm/only is not sure enough to write: only model used in this role, so nothing to compare it with, thin evidence: only 3 sessions' }]);
    expect(result.written).toBe(false);
  });

  it('is a recommendation with a clear build pick and a close call for review', () => {
    const result = recommendation();
    expect(result.roles.map((role) => [role.agent, role.pick.model, role.certain])).toEqual([
      ['build', 'good/model', true],
      ['review', 'tie/one', false],
    ]);
  });

  it('shows the diff, asks, writes with a backup, and changes nothing the second time', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'opencode.jsonc');
    fs.writeFileSync(file, COMMENTED);
    fs.writeFileSync(path.join(dir, 'opencode.json'), '{}');
    const asked: string[] = [];
    const shown: string[] = [];
    const first = await applyRecommendation(recommendation(), options(dir), asking(true, asked), (lines) => shown.push(...lines));
    expect(asked).toEqual([`Write these changes to ${file}? [y/N] `]);
    expect(first).toMatchObject({ file, written: true, changes: [{ agent: 'build', from: 'old/model', to: 'good/model' }] });
    expect(first.skipped).toEqual([{ agent: 'review', reason: expect.stringMatching(/^tie\/one is not sure enough to write: a tie with tie\/two: either would do \(\d+% likely the best\)$/) }]);
    expect(shown).toContain(`Apply to ${file}:`);
    expect(shown).toContain('  build: old/model -> good/model');
    expect(shown).toContain('-     "build": { "model": "old/model", "temperature": 0.2 },');
    expect(shown).toContain('+     "build": { "model": "good/model", "temperature": 0.2 },');
    expect(fs.readFileSync(file, 'utf8')).toBe(COMMENTED.replace('old/model', 'good/model'));
    expect(fs.readFileSync(first.backup as string, 'utf8')).toBe(COMMENTED);
    expect(describeOutcome(first)).toBe(`Wrote ${file} (backup: ${first.backup}). Restart OpenCode to use the new setup.`);

    const before = fs.readdirSync(dir).sort();
    const shownAgain: string[] = [];
    const again = await applyRecommendation(recommendation(), options(dir), asking(true, asked), (lines) => shownAgain.push(...lines));
    expect(again).toMatchObject({ written: false, changes: [], diff: [] });
    // A role was left alone: the line must not claim the config already uses the whole answer.
    expect(shownAgain.some((line) => line.startsWith('  left review as it is: tie/one is not sure enough to write: a tie'))).toBe(true);
    expect(shownAgain).toContain('  nothing else to change: every other role already uses its pick.');
    expect(shownAgain).not.toContain('  nothing to change: the config already uses this setup.');
    expect(asked).toHaveLength(1);
    expect(fs.readdirSync(dir).sort()).toEqual(before);
    expect(describeOutcome(again)).toBeUndefined();
  });

  it('writes close calls too with --include-uncertain', async () => {
    const dir = tempDir();
    const result = await applyRecommendation(recommendation(), options(dir, { yes: true, includeUncertain: true }), noTerminal, () => undefined);
    expect(result.skipped).toEqual([]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'opencode.json'), 'utf8'))).toEqual({
      $schema: 'https://opencode.ai/config.json',
      agent: { build: { model: 'good/model' }, review: { model: 'tie/one' } },
    });
    expect(result.backup).toBeNull();
  });

  it.each([
    ['--dry-run', { dryRun: true, yes: true }, asking(true), 'dry run', 'Dry run: nothing written.'],
    ['no terminal and no --yes', {}, noTerminal, 'no terminal', 'No terminal to ask, so nothing was written (a dry run). Run again with --yes to write it.'],
    ['the user says no', {}, asking(false), 'declined', 'Nothing written.'],
  ] as const)('writes nothing on %s', async (_name, overrides, prompt, reason, line) => {
    const dir = tempDir();
    const file = path.join(dir, 'opencode.json');
    fs.writeFileSync(file, COMMENTED);
    const result = await applyRecommendation(recommendation(), options(dir, overrides), prompt, () => undefined);
    expect(result).toMatchObject({ written: false, notWritten: reason, changes: [{ agent: 'build' }] });
    expect(describeOutcome(result)).toBe(line);
    expect(fs.readFileSync(file, 'utf8')).toBe(COMMENTED);
    expect(fs.readdirSync(dir)).toEqual(['opencode.json']);
  });

  it('writes without asking with --yes', async () => {
    const dir = tempDir();
    const result = await applyRecommendation(recommendation(), options(dir, { yes: true }), asking(false), () => undefined);
    expect(result.written).toBe(true);
  });

  it('leaves a config that does not parse byte-identical and says so in one line', () => {
    const dir = tempDir();
    const file = path.join(dir, 'opencode.json');
    const broken = Buffer.from('{ "agent": { // half\n');
    fs.writeFileSync(file, broken);
    expect(() => planApply(recommendation(), options(dir))).toThrow(CliError);
    expect(() => planApply(recommendation(), options(dir))).toThrow(/^\S+opencode\.json does not parse \(.+\); it was left untouched\. Fix it, then run "agent-tracker recommend --apply" again\.$/);
    expect(fs.readFileSync(file).equals(broken)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['opencode.json']);
  });
});
