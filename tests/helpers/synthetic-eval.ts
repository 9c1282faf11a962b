/**
 * The recommendation's evaluation set: seeded synthetic worlds whose best model per role and project
 * family is KNOWN, written as an export file (format v2) through the store's import function, and read
 * back through `agent-tracker recommend --json` (the CLI command run in process). The naive baselines
 * are computed here from the generated records, never with the code under test.
 *
 * A world: three project families (three projects each), two committing roles, five models. Each
 * family × role gives every model a true mean user grade; the best is ahead of the second by a margin.
 * Per commit the user grades about 30%, the setup grades itself about 85% (some models overclaim),
 * and bugs, tool failures, reverts and undone turns follow the true quality.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveConfig } from '../../src/core/config.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import { importExport } from '../../src/core/store/transfer.js';
import { run as recommendCommand } from '../../src/cli/commands/recommend.js';
import type { ProjectProfile, UsageRecord } from '../../src/core/types.js';
import { seededRandom } from './synthetic-truth.js';

export const EVAL_ROLES = ['build', 'review'] as const;
export const EVAL_MODELS = ['m/ash', 'm/birch', 'm/cedar', 'm/dogwood', 'm/elm'] as const;

export interface EvalFamily {
  name: string;
  language: string;
  framework: string;
  scope: string;
  dependencies: string[];
}

export const EVAL_FAMILIES: readonly EvalFamily[] = [
  { name: 'rust-api', language: 'rust', framework: 'axum', scope: 'api', dependencies: ['tokio', 'serde', 'axum'] },
  { name: 'ts-web', language: 'typescript', framework: 'react', scope: 'web', dependencies: ['react', 'vite', 'zod'] },
  { name: 'py-data', language: 'python', framework: 'pandas', scope: 'data', dependencies: ['pandas', 'numpy'] },
];
/** Never in any history. */
export const EVAL_UNSEEN: EvalFamily = { name: 'go-cli', language: 'go', framework: 'cobra', scope: 'cli', dependencies: ['cobra', 'viper'] };

/** How a world is drawn: the evaluation set and the held-out set differ in these. */
export interface WorldParameters {
  /** Share of commits the user grades. */
  userGradeRate: number;
  /** Share of commits the setup grades itself. */
  selfGradeRate: number;
  /** Share of grades drawn at random from every grade (noise). */
  gradeNoise: number;
  /** Sessions per setup and family: [min, max]. */
  sessions: [number, number];
  /** True mean user grade of the best model: [min, max]. */
  bestMean: [number, number];
  /** How far the second model trails the best (mean user grade): [min, max]. */
  gap: [number, number];
  /** Only bugs and tool failures follow quality (no reverts, follow-up fixes or undone turns recorded). */
  bugsAndFailuresOnly?: boolean;
}

export const EVAL_PARAMETERS: WorldParameters = { userGradeRate: 0.3, selfGradeRate: 0.85, gradeNoise: 0.1, sessions: [4, 30], bestMean: [3.6, 4.4], gap: [0.4, 1.0] };
/** The evaluation worlds with fewer outcome signals: only bugs and tool failures follow quality. */
export const SPARSE_PARAMETERS: WorldParameters = { ...EVAL_PARAMETERS, bugsAndFailuresOnly: true };
/** The held-out set: other seeds, fewer user grades, more noise, other sizes and gaps. Not looked at while tuning. */
export const HELD_OUT_PARAMETERS: WorldParameters = { userGradeRate: 0.25, selfGradeRate: 0.9, gradeNoise: 0.15, sessions: [3, 36], bestMean: [3.4, 4.5], gap: [0.35, 1.1] };

/** What the answer should be for one target project × role. */
export interface EvalCase {
  target: string;
  family: string;
  role: string;
  /** The true mean user grade per model. */
  truth: Record<string, number>;
  best: string;
  /** Commits the best model made on the target's family. */
  bestCommits: number;
  /** The target's family is in the history. */
  seen: boolean;
}

export interface EvalWorld {
  name: string;
  usage: UsageRecord[];
  profiles: ProjectProfile[];
  cases: EvalCase[];
}

export function familyProfile(family: EvalFamily, project: string, dependencies = family.dependencies): ProjectProfile {
  return { path: project, language: family.language, framework: family.framework, scope: family.scope, dependencies, manifestType: 'synthetic', classifiedAt: '2025-01-01T00:00:00.000Z', agentsmdHash: '' };
}

const GRADES = [-1, 1, 2, 5] as const;

/**
 * One grade with true mean `mean` (1..5) before noise: a mix of the two grades around it, so the mean
 * is exact; with probability `noise` any grade instead.
 */
export function drawGrade(mean: number, noise: number, random: () => number): number {
  if (random() < noise) return GRADES[Math.floor(random() * GRADES.length)] ?? 1;
  const m = Math.min(5, Math.max(1, mean));
  if (m >= 2) return random() < (m - 2) / 3 ? 5 : 2;
  return random() < m - 1 ? 2 : 1;
}

/** Quality 0..1 from a mean user grade 1..5: what bugs, failures and reverts follow. */
const qualityOf = (mean: number) => Math.min(1, Math.max(0, (mean - 1) / 4));

export interface SetupPlan {
  role: string;
  model: string;
  family: EvalFamily;
  projects: string[];
  /** True mean user grade. */
  mean: number;
  /** How much the setup overrates itself (added to its true mean); Infinity: always grades itself 5. */
  overclaim: number;
  sessions: number;
  /** Cost per session in dollars. */
  cost: number;
}

/** Session ids run on within a world; each world generator starts it again, so a world is the same whatever ran before. */
let sessionCounter = 0;

/** A setup's sessions: usage records whose outcomes follow its true quality. */
export function setupSessions(plan: SetupPlan, parameters: WorldParameters, random: () => number, prefix: string): UsageRecord[] {
  const quality = qualityOf(plan.mean);
  const records: UsageRecord[] = [];
  for (let s = 0; s < plan.sessions; s += 1) {
    sessionCounter += 1;
    const commits = 1 + Math.floor(random() * 3);
    const toolCalls = 8 + Math.floor(random() * 16);
    const day = String(1 + (s % 28)).padStart(2, '0');
    const record: UsageRecord = {
      sessionId: `${prefix}_${sessionCounter}`,
      agent: plan.role,
      model: plan.model,
      project: plan.projects[s % plan.projects.length] ?? '',
      firstAt: `2025-03-${day}T09:00:00.000Z`,
      lastAt: `2025-03-${day}T10:00:00.000Z`,
      toolCalls,
      toolFailures: 0,
      commands: 0,
      commits,
      pushes: 0,
      bugs: 0,
      gradedCommits: 0,
      gradeSum: 0,
      csDelta: 0,
      messages: 6,
      tokensInput: 20_000,
      tokensOutput: 3_000,
      tokensReasoning: 0,
      tokensCacheRead: 0,
      tokensCacheWrite: 0,
      cost: plan.cost,
      userGradedCommits: 0,
      userGradeSum: 0,
      selfGradedCommits: 0,
      selfGradeSum: 0,
      turns: 0,
      undoneTurns: 0,
      revertedCommits: 0,
      followUpFixCommits: 0,
    };
    const add = (name: 'userGradedCommits' | 'userGradeSum' | 'selfGradedCommits' | 'selfGradeSum' | 'undoneTurns' | 'revertedCommits' | 'followUpFixCommits' | 'bugs' | 'toolFailures', amount: number) => {
      record[name] = (record[name] ?? 0) + amount;
    };
    for (let i = 0; i < toolCalls; i += 1) if (random() < 0.03 + 0.15 * (1 - quality)) add('toolFailures', 1);
    const turns = 2 + Math.floor(random() * 3);
    record.turns = turns;
    for (let i = 0; i < turns; i += 1) if (random() < 0.2 * (1 - quality) && !parameters.bugsAndFailuresOnly) add('undoneTurns', 1);
    for (let c = 0; c < commits; c += 1) {
      const userGrade = drawGrade(plan.mean, parameters.gradeNoise, random);
      if (random() < parameters.userGradeRate) {
        add('userGradedCommits', 1);
        add('userGradeSum', userGrade);
      }
      if (random() < parameters.selfGradeRate) {
        add('selfGradedCommits', 1);
        add('selfGradeSum', plan.overclaim === Infinity ? 5 : drawGrade(plan.mean + plan.overclaim, parameters.gradeNoise, random));
      }
      const fate = random();
      if (parameters.bugsAndFailuresOnly) {
        // Nothing recorded of what happened to the commit afterwards.
      } else if (fate < 0.15 * (1 - quality)) add('revertedCommits', 1);
      else if (fate < 0.35 * (1 - quality)) add('followUpFixCommits', 1);
      if (random() < 0.2 * (1 - quality)) add('bugs', 1);
    }
    records.push(record);
  }
  return records;
}

const between = ([low, high]: [number, number], random: () => number) => low + (high - low) * random();
const whole = ([low, high]: [number, number], random: () => number) => low + Math.floor(random() * (high - low + 1));

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

const OVERCLAIMS = [0, 0.3, 0.8, Infinity];

export const targetOf = (family: EvalFamily) => `/eval/${family.name}-new`;
const projectsOf = (family: EvalFamily) => [0, 1, 2].map((i) => `/eval/${family.name}-${i}`);

/** One general world: every family × role has its own best model. */
export function generalWorld(seed: number, parameters: WorldParameters): EvalWorld {
  sessionCounter = 0;
  const random = seededRandom(seed);
  const usage: UsageRecord[] = [];
  const profiles: ProjectProfile[] = [];
  const cases: EvalCase[] = [];
  // Each model overrates itself by its own habit, the same everywhere.
  const overclaim = Object.fromEntries(EVAL_MODELS.map((model) => [model, OVERCLAIMS[Math.floor(random() * OVERCLAIMS.length)] ?? 0]));
  for (const family of EVAL_FAMILIES) {
    const projects = projectsOf(family);
    projects.forEach((project, i) => profiles.push(familyProfile(family, project, family.dependencies.slice(0, 2 + (i % 2)))));
    profiles.push(familyProfile(family, targetOf(family), family.dependencies.slice(0, 2)));
    for (const role of EVAL_ROLES) {
      const order = shuffled(EVAL_MODELS, random);
      const best = between(parameters.bestMean, random);
      const second = best - between(parameters.gap, random);
      const truth: Record<string, number> = {};
      order.forEach((model, rank) => {
        truth[model] = rank === 0 ? best : rank === 1 ? second : second - 0.1 - 0.8 * random();
      });
      let bestCommits = 0;
      for (const model of order) {
        const records = setupSessions(
          { role, model, family, projects, mean: truth[model] ?? 1, overclaim: overclaim[model] ?? 0, sessions: whole(parameters.sessions, random), cost: 0.3 },
          parameters,
          random,
          `w${seed}`,
        );
        if (model === order[0]) bestCommits = records.reduce((sum, r) => sum + r.commits, 0);
        usage.push(...records);
      }
      cases.push({ target: targetOf(family), family: family.name, role, truth, best: order[0] ?? '', bestCommits, seen: true });
    }
  }
  profiles.push(familyProfile(EVAL_UNSEEN, targetOf(EVAL_UNSEEN)));
  for (const role of EVAL_ROLES) cases.push({ target: targetOf(EVAL_UNSEEN), family: EVAL_UNSEEN.name, role, truth: {}, best: '', bestCommits: 0, seen: false });
  return { name: `general ${seed}`, usage, profiles, cases };
}

/**
 * The confounded case: on the target's family the best model has 60 commits at a mean user grade of
 * 4.2 while the others, with more work, sit at 3.0-3.4; on the other families the order is reversed
 * (the best one here is poor there), so history from unlike projects pulls the wrong way.
 */
export function confoundedWorld(seed: number): EvalWorld {
  sessionCounter = 0;
  const random = seededRandom(seed);
  const parameters = EVAL_PARAMETERS;
  const [home, ...others] = EVAL_FAMILIES as [EvalFamily, ...EvalFamily[]];
  const [star, ...rest] = shuffled(EVAL_MODELS, random) as [string, ...string[]];
  const usage: UsageRecord[] = [];
  const profiles: ProjectProfile[] = [];
  const push = (family: EvalFamily, model: string, mean: number, sessions: number) =>
    usage.push(...setupSessions({ role: 'build', model, family, projects: projectsOf(family), mean, overclaim: 0.3, sessions, cost: 0.3 }, parameters, random, `c${seed}`));
  for (const family of EVAL_FAMILIES) {
    projectsOf(family).forEach((project) => profiles.push(familyProfile(family, project)));
  }
  profiles.push(familyProfile(home, targetOf(home), home.dependencies.slice(0, 2)));
  // 60 commits: sessions of exactly two commits on average is not guaranteed, so draw until 60.
  let starCommits = 0;
  while (starCommits < 60) {
    const [record] = setupSessions({ role: 'build', model: star, family: home, projects: projectsOf(home), mean: 4.2, overclaim: 0.3, sessions: 1, cost: 0.3 }, parameters, random, `c${seed}`);
    if (!record) break;
    record.commits = Math.min(record.commits, 60 - starCommits);
    // Keep the outcome counters within the commits left.
    for (const name of ['userGradedCommits', 'selfGradedCommits', 'revertedCommits', 'followUpFixCommits', 'bugs'] as const) {
      const over = (record[name] ?? 0) - record.commits;
      if (over > 0) {
        if (name === 'userGradedCommits') record.userGradeSum = Math.round(((record.userGradeSum ?? 0) * record.commits) / (record.userGradedCommits ?? 1));
        if (name === 'selfGradedCommits') record.selfGradeSum = Math.round(((record.selfGradeSum ?? 0) * record.commits) / (record.selfGradedCommits ?? 1));
        record[name] = record.commits;
      }
    }
    if ((record.revertedCommits ?? 0) + (record.followUpFixCommits ?? 0) > record.commits) record.followUpFixCommits = record.commits - (record.revertedCommits ?? 0);
    starCommits += record.commits;
    usage.push(record);
  }
  const truth: Record<string, number> = { [star]: 4.2 };
  for (const model of rest) {
    const mean = 3.0 + 0.4 * random();
    truth[model] = mean;
    push(home, model, mean, 25 + Math.floor(random() * 30));
  }
  for (const family of others) {
    push(family, star, 2.6, 20 + Math.floor(random() * 20));
    for (const model of rest) push(family, model, 3.8 + 0.4 * random(), 20 + Math.floor(random() * 20));
  }
  return { name: `confounded ${seed}`, usage, profiles, cases: [{ target: targetOf(home), family: home.name, role: 'build', truth, best: star, bestCommits: 60, seen: true }] };
}

/** The inflation case: one model grades itself 5 on every commit while the user grades it 3.0; an honest one the user grades 3.6. */
export function inflationWorld(seed: number): EvalWorld {
  sessionCounter = 0;
  const random = seededRandom(seed);
  const parameters = EVAL_PARAMETERS;
  const family = EVAL_FAMILIES[1] as EvalFamily;
  const [inflater, honest, ...rest] = shuffled(EVAL_MODELS, random) as [string, string, ...string[]];
  const usage: UsageRecord[] = [];
  const profiles = [...projectsOf(family).map((project) => familyProfile(family, project)), familyProfile(family, targetOf(family), family.dependencies.slice(0, 2))];
  const sessions = () => 15 + Math.floor(random() * 20);
  const truth: Record<string, number> = { [inflater]: 3.0, [honest]: 3.6 };
  usage.push(...setupSessions({ role: 'build', model: inflater, family, projects: projectsOf(family), mean: 3.0, overclaim: Infinity, sessions: sessions(), cost: 0.3 }, parameters, random, `i${seed}`));
  usage.push(...setupSessions({ role: 'build', model: honest, family, projects: projectsOf(family), mean: 3.6, overclaim: 0, sessions: sessions(), cost: 0.3 }, parameters, random, `i${seed}`));
  for (const model of rest.slice(0, 1)) {
    truth[model] = 2.6;
    usage.push(...setupSessions({ role: 'build', model, family, projects: projectsOf(family), mean: 2.6, overclaim: 0, sessions: sessions(), cost: 0.3 }, parameters, random, `i${seed}`));
  }
  return { name: `inflation ${seed}`, usage, profiles, cases: [{ target: targetOf(family), family: family.name, role: 'build', truth, best: honest, bestCommits: 0, seen: true }] };
}

// ---- writing a world through import, reading it through recommend --json -----------------------

/** The world as an export file, format v2: a header, one line per record, the end line. */
export function exportText(world: EvalWorld): string {
  const lines = [JSON.stringify({ kind: 'header', format: 'agent-tracker-export', version: 2, exportedAt: '2025-04-01T00:00:00.000Z' })];
  for (const profile of world.profiles) lines.push(JSON.stringify({ kind: 'projects', key: profile.path, value: profile }));
  for (const record of world.usage) lines.push(JSON.stringify({ kind: 'sessions', key: [record.sessionId, record.agent, record.model], value: record }));
  lines.push(JSON.stringify({ kind: 'end', records: world.profiles.length + world.usage.length }));
  return `${lines.join('\n')}\n`;
}

/** The fields of `recommend --json` the evaluation reads (documented in the README). */
export interface RecommendJson {
  roles: {
    agent: string;
    pick: { model: string; score: number; interval: [number, number]; n: number; why: string; thin?: boolean };
    runnerUp: { model: string; score: number; why: string } | null;
    probabilityBest: number;
    confidence: string;
    thinEvidence?: boolean;
    caveat?: string;
  }[];
  message?: string;
}

/** Imports the world into a fresh temporary database and asks recommend --json for each target. */
export async function answerWorld(world: EvalWorld, prefer?: string): Promise<Map<string, RecommendJson>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-eval-'));
  const dbPath = path.join(dir, 'db.lmdb');
  try {
    const config = resolveConfig({ options: { databasePath: dbPath }, env: {}, home: dir });
    const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
    try {
      importExport(store, exportText(world), path.join(dir, 'world.ndjson'));
    } finally {
      store.close();
    }
    const answers = new Map<string, RecommendJson>();
    for (const target of new Set(world.cases.map((c) => c.target))) {
      const printed: string[] = [];
      const args = ['--project', target, '--json', '--db', dbPath, ...(prefer ? ['--prefer', prefer] : [])];
      await recommendCommand(args, { out: (text) => printed.push(text), err: (text) => printed.push(text) });
      answers.set(target, JSON.parse(printed.join('\n')) as RecommendJson);
    }
    return answers;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---- the naive baselines, from the generated records ---------------------------------------------

/** Commits and grade sums of one model on one family and role. */
function familyTotals(world: EvalWorld, family: string, role: string): Map<string, { commits: number; user: [number, number]; all: [number, number] }> {
  const totals = new Map<string, { commits: number; user: [number, number]; all: [number, number] }>();
  for (const record of world.usage) {
    if (record.agent !== role || !record.project.startsWith(`/eval/${family}-`)) continue;
    const entry = totals.get(record.model) ?? { commits: 0, user: [0, 0], all: [0, 0] };
    entry.commits += record.commits;
    entry.user[0] += record.userGradedCommits ?? 0;
    entry.user[1] += record.userGradeSum ?? 0;
    entry.all[0] += (record.userGradedCommits ?? 0) + (record.selfGradedCommits ?? 0);
    entry.all[1] += (record.userGradeSum ?? 0) + (record.selfGradeSum ?? 0);
    totals.set(record.model, entry);
  }
  return totals;
}

/** The model with the highest mean of the chosen grades among models with at least `minCommits` on the family (ties: by name). */
function baseline(world: EvalWorld, c: EvalCase, which: 'user' | 'all', minCommits = 10): string | null {
  let bestModel: string | null = null;
  let bestMean = -Infinity;
  for (const [model, entry] of [...familyTotals(world, c.family, c.role)].sort(([a], [b]) => a.localeCompare(b))) {
    const [count, sum] = entry[which];
    if (entry.commits < minCommits || count === 0) continue;
    if (sum / count > bestMean) {
      bestMean = sum / count;
      bestModel = model;
    }
  }
  return bestModel;
}

/** Baseline 1: the highest mean USER grade on the same family among models with ≥ 10 commits. */
export const userGradeBaseline = (world: EvalWorld, c: EvalCase) => baseline(world, c, 'user');
/** Baseline 2: the highest mean of ALL grades (the user's and the setup's own) on the same family, ≥ 10 commits. */
export const allGradesBaseline = (world: EvalWorld, c: EvalCase) => baseline(world, c, 'all');
