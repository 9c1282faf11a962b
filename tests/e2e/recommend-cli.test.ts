/**
 * `agent-tracker recommend` as a user runs it (the built CLI in a temporary HOME): the per-role answer
 * in text and --json, --apply into a project's and the global opencode.json, and bad input (one line,
 * exit 1, nothing changed). Needs `npm run build` first.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { resolveConfig } from '../../src/core/config.js';
import { Store } from '../../src/core/store/store.js';
import type { Mutation } from '../../src/core/store/mutations.js';
import type { CounterDeltas, UsageRecord } from '../../src/core/types.js';
import { makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { usageRecord } from '../helpers/usage-record.js';
import { termIndexer } from '../../src/core/search/indexer.js';

const COUNTER_NAMES = new Set([
  'toolCalls', 'toolFailures', 'commands', 'commits', 'pushes', 'bugs', 'gradedCommits', 'gradeSum', 'csDelta', 'messages',
  'tokensInput', 'tokensOutput', 'tokensReasoning', 'tokensCacheRead', 'tokensCacheWrite', 'cost', 'userGradedCommits', 'userGradeSum',
  'selfGradedCommits', 'selfGradeSum', 'reportedGradedCommits', 'reportedGradeSum', 'turns', 'undoneTurns', 'testRuns', 'testPasses',
  'testRecoveries', 'revertedCommits', 'followUpFixCommits', 'trackerFileEdits',
]);

/** Stores usage records through the store's one-transaction batch, as a flush would. */
function storeUsage(dbPath: string, home: string, records: readonly UsageRecord[]): void {
  const config = resolveConfig({ options: { databasePath: dbPath }, env: {}, home });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  try {
    const mutations: Mutation[] = records.map((record) => {
      const counters: CounterDeltas = {};
      const init: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(record)) {
        if (COUNTER_NAMES.has(name)) (counters as Record<string, number>)[name] = value as number;
        else if (name !== 'lastAt') init[name] = value;
      }
      return { table: 'usage', key: [record.sessionId, record.agent, record.model], init: init as Mutation extends { init: infer I } ? I : never, counters, lastAt: record.lastAt };
    });
    store.applyBatch(mutations, config.rules, new Date().toISOString());
  } finally {
    store.close();
  }
}

const many = (count: number, overrides: Parameters<typeof usageRecord>[0]) => Array.from({ length: count }, () => usageRecord(overrides));

describe('agent-tracker recommend', () => {
  let sandbox: Sandbox;
  let project: string;
  let db: string;

  beforeAll(() => {
    sandbox = makeSandbox('agent-tracker-recommend-');
    project = path.join(sandbox.root, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'Cargo.toml'), '[package]\nname = "p"\nversion = "0.1.0"\n\n[dependencies]\ntokio = "1"\n');
    db = sandbox.dbPath;
    storeUsage(db, sandbox.home, [
      ...many(40, { agent: 'build', model: 'good/model', project, commits: 2, userGradedCommits: 2, userGradeSum: 9, selfGradedCommits: 2, selfGradeSum: 4, testRuns: 2, testPasses: 2, toolCalls: 10, cost: 0.4 }),
      ...many(40, { agent: 'build', model: 'poor/model', project, commits: 2, userGradedCommits: 2, userGradeSum: 0, selfGradedCommits: 2, selfGradeSum: 10, revertedCommits: 1, testRuns: 2, testPasses: 1, toolCalls: 10, cost: 0.2 }),
      ...many(20, { agent: 'review', model: 'tie/one', project, commits: 1, userGradedCommits: 1, userGradeSum: 2, toolCalls: 10, cost: 0.1 }),
      ...many(20, { agent: 'review', model: 'tie/two', project, commits: 1, userGradedCommits: 1, userGradeSum: 2, toolCalls: 10, cost: 0.1 }),
      ...many(1, { agent: 'build', model: 'lucky/model', project, commits: 2, userGradedCommits: 2, userGradeSum: 10, toolCalls: 4, cost: 0.01 }),
      // A middling docs writer, and a new one with three excellent commits: worth trying, not the pick.
      ...many(30, { agent: 'docs', model: 'mid/model', project, commits: 1, userGradedCommits: 1, userGradeSum: 1, toolCalls: 10, cost: 0.1 }),
      ...many(1, { agent: 'docs', model: 'new/model', project, commits: 3, userGradedCommits: 3, userGradeSum: 15, toolCalls: 10, cost: 0.1 }),
    ]);
  });
  afterAll(() => removeSandbox(sandbox));

  const cli = (args: string[]) => runCli(sandbox, [...args, '--db', db], {}, project);

  it('answers per role in plain text: pick, interval, confidence, runner-up, cost, worth trying', () => {
    const result = cli(['recommend']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Recommended setup (prefer balanced), per role:');
    expect(result.stdout).toMatch(/- build: good\/model — clear \(\d+% likely the best\)\n {4}score \d+\.\d \(80%: \d+\.\d-\d+\.\d\), 80 commits, \$0\.200 per accepted commit\n {4}why: user 4\.5\/5 over 80 commits/);
    expect(result.stdout).toMatch(/runner-up: poor\/model — score [\d.]+ \(80%: [\d.]+-[\d.]+\), 80 commits, \$0\.200 per accepted commit/);
    expect(result.stdout).toMatch(/- review: tie\/(one|two) — a tie with tie\/(one|two): either would do/);
    expect(result.stdout).toContain('Worth trying next (experiments: little evidence, but they might beat the pick):\n- docs: new/model instead of mid/model');
  });

  it('gives the documented --json shape, with the old recommendations list', () => {
    const result = cli(['recommend', '--json', '--prefer', 'quality']);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.prefer).toBe('quality');
    expect(json.project.path).toBe(project);
    const build = json.roles.find((role: { agent: string }) => role.agent === 'build');
    expect(build).toMatchObject({
      agent: 'build',
      pick: { model: 'good/model', n: 80, costPerAcceptedCommit: 0.2 },
      runnerUp: { model: 'poor/model', costPerAcceptedCommit: 0.2 },
      confidence: 'clear',
    });
    expect(build.pick.interval).toHaveLength(2);
    expect(build.pick.interval[0]).toBeLessThanOrEqual(build.pick.score);
    expect(build.probabilityBest).toBeGreaterThan(0.95);
    expect(build.alternatives.map((a: { model: string }) => a.model)).toEqual(['lucky/model']);
    expect(json.worthTrying).toEqual([expect.objectContaining({ agent: 'docs', model: 'new/model', n: 3, experiment: true, insteadOf: 'mid/model' })]);
    expect(json.roles.find((role: { agent: string }) => role.agent === 'docs').pick.model).toBe('mid/model');
    expect(json.setup.map((s: { agent: string }) => s.agent)).toEqual(['build', 'docs', 'review']);
    expect(json.recommendations[0]).toMatchObject({ agent: expect.any(String), model: expect.any(String), score: expect.any(Number), n: expect.any(Number), why: expect.any(String) });
  });

  it('applies to the project config with --yes, keeping comments, leaving the close call, and changes nothing the second time', () => {
    const file = path.join(project, 'opencode.jsonc');
    const text = '{\n  // mine\n  "agent": {\n    "build": { "model": "poor/model" } // was this\n  }\n}\n';
    fs.writeFileSync(file, text);
    const first = cli(['recommend', '--apply', '--yes']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('  build: poor/model -> good/model');
    expect(first.stdout).toMatch(/left review as it is: tie\/(one|two) is not sure enough to write: a tie/);
    // The backup goes to the config folder's backups folder: one beside the file was committed by `git add -A`.
    const backups = path.join(sandbox.configDir, 'agent-tracker-backups');
    expect(first.stdout).toContain(`Wrote ${file} (backup: ${backups}/${path.basename(project)}-opencode.jsonc.agent-tracker-backup-`);
    expect(fs.readdirSync(project).filter((name) => name.includes('backup'))).toEqual([]);
    const doctor = runCli(sandbox, ['doctor', '--db', db]);
    expect(doctor.stdout).toMatch(new RegExp(`^backups +1 in ${backups}\\n {2}${path.basename(project)}-opencode\\.jsonc\\.agent-tracker-backup-\\d{8}T\\d{6}Z `, 'm'));
    const written = fs.readFileSync(file, 'utf8');
    expect(written).toContain('// mine');
    expect(written).toContain('"build": { "model": "good/model" } // was this');
    expect(written).not.toContain('review');
    expect(written).toMatch(/"docs": \{\s+"model": "mid\/model"\s+\},/);
    const listing = fs.readdirSync(project).sort();
    const second = cli(['recommend', '--apply', '--yes']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('nothing else to change: every other role already uses its pick.');
    expect(fs.readdirSync(project).sort()).toEqual(listing);
  });

  it('is a dry run without a terminal and without --yes', () => {
    const dry = path.join(sandbox.root, 'dry');
    fs.mkdirSync(dry);
    // The history's project has no stored profile, so nothing in it is like this one: every pick carries a
    // caveat and is uncertain, and only --include-uncertain offers to write it.
    fs.copyFileSync(path.join(project, 'Cargo.toml'), path.join(dry, 'Cargo.toml'));
    const cautious = runCli(sandbox, ['recommend', '--apply', '--project', dry, '--db', db]);
    expect(cautious.stdout).toMatch(/left build as it is: good\/model is uncertain: no project like this one \(rust\) in the history/);
    const result = runCli(sandbox, ['recommend', '--apply', '--include-uncertain', '--project', dry, '--db', db]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No terminal to ask, so nothing was written (a dry run). Run again with --yes to write it.');
    expect(fs.readdirSync(dry)).toEqual(['Cargo.toml']);
  });

  it('says --global applies one project\'s picks everywhere, and without --yes (no terminal) writes nothing', () => {
    const result = cli(['recommend', '--apply', '--global']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`--global: these picks were made for ${project} (projects like it), and the global opencode.json applies them to EVERY project`);
    expect(result.stdout).toContain('No terminal to ask, so nothing was written');
    expect(fs.existsSync(path.join(sandbox.configDir, 'opencode.json'))).toBe(false);
  });

  it('applies to the global config with --global, and --include-uncertain writes close calls', () => {
    const result = cli(['recommend', '--apply', '--global', '--yes', '--include-uncertain']);
    expect(result.code).toBe(0);
    const global = JSON.parse(fs.readFileSync(path.join(sandbox.configDir, 'opencode.json'), 'utf8'));
    expect(global.agent.build.model).toBe('good/model');
    expect(['tie/one', 'tie/two']).toContain(global.agent.review.model);
  });

  it.each([
    [['recommend', '--prefer', 'fastest'], /^agent-tracker recommend: --prefer must be one of quality, balanced, cheap, got "fastest"$/],
    [['recommend', '--project', '/nowhere/at/all'], /^agent-tracker recommend: project folder \/nowhere\/at\/all does not exist and has no stored profile: pass --project with an existing folder$/],
    [['recommend', '--apply', '--project', '/nowhere/at/all', '--yes'], /^agent-tracker recommend: project folder \/nowhere\/at\/all does not exist: pass --project/],
    [['recommend', '--yes'], /^agent-tracker recommend: --yes only goes with --apply$/],
    [['recommend', '--global'], /^agent-tracker recommend: --global only goes with --apply$/],
  ])('exits 1 with one clear line for %p', (args, message) => {
    const result = cli(args);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(message);
  });

  it('leaves a config that does not parse byte-identical: one line, exit 1', () => {
    const broken = path.join(sandbox.root, 'broken');
    fs.mkdirSync(broken);
    const file = path.join(broken, 'opencode.json');
    fs.writeFileSync(file, '{ "agent": { "build": ');
    const result = runCli(sandbox, ['recommend', '--apply', '--yes', '--project', broken, '--db', db]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/opencode\.json does not parse .*it was left untouched\. Fix it, then run "agent-tracker recommend --apply" again\./);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ "agent": { "build": ');
    expect(fs.readdirSync(broken)).toEqual(['opencode.json']);
  });

  it('with no history, says so and points at backfill', () => {
    const empty = path.join(sandbox.root, 'empty.lmdb');
    // No database at all: a reader creates none, and says so in one line.
    const missing = runCli(sandbox, ['recommend', '--db', empty], {}, project);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('agent-tracker backfill');
    expect(fs.existsSync(empty)).toBe(false);
    // An empty database.
    Store.open({ path: empty, maxDatabaseSize: 2 ** 20 }).close();
    const result = runCli(sandbox, ['recommend', '--db', empty], {}, project);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No history yet');
    expect(result.stdout).toContain('agent-tracker backfill');
  });
});
