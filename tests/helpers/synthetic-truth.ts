/**
 * Synthetic histories with a known truth, for judging the recommendation. A "world" (one seed) has
 * three project families, three roles (build and review commit, plan does not) and four models.
 * Each family × role has a true quality per model, either with one model clearly best or with the two
 * best exactly tied (same quality, same cost). Outcomes are drawn from the quality with noise: the
 * user grades some commits (noisy), commits are reverted or fixed after, turns undone, tests fail,
 * bugs and tool failures happen, and self-grades are uninformative (setups always rate themselves
 * well). A "lucky" model has two perfect commits in the target family. A fourth family is never seen:
 * its truth is the known families' average. Expected answers come from the truth, never from the
 * code under test.
 */
import type { ProjectProfile, UsageRecord } from '../../src/core/types.js';

/** mulberry32: small, seedable, good enough for test data. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const ROLES = ['build', 'review', 'plan'] as const;
export const MODELS = ['p/alpha', 'p/beta', 'p/gamma', 'p/delta'] as const;
export const LUCKY_MODEL = 'p/lucky';
const COMMITTING_ROLES = new Set<string>(['build', 'review']);

export interface Family {
  name: string;
  language: string;
  framework: string;
  scope: string;
  dependencies: string[];
}

export const FAMILIES: readonly Family[] = [
  { name: 'rust-api', language: 'rust', framework: 'axum', scope: 'api', dependencies: ['tokio', 'serde', 'axum'] },
  { name: 'ts-web', language: 'typescript', framework: 'react', scope: 'web', dependencies: ['react', 'vite', 'zod'] },
  { name: 'py-web', language: 'python', framework: 'django', scope: 'web', dependencies: ['django', 'celery'] },
];
/** Never in any history. */
export const UNSEEN_FAMILY: Family = { name: 'go-cli', language: 'go', framework: 'cobra', scope: 'cli', dependencies: ['cobra', 'viper'] };

export type Situation = 'clear' | 'tie';

/** A truth gap at least this large (in quality, 0..1) counts as "clearly best". */
export const CLEAR_GAP = 0.12;

export interface Expectation {
  target: ProjectProfile;
  role: string;
  /** The true quality per model for this target. */
  quality: Record<string, number>;
  situation: Situation | 'in between';
  /** The true best model (for a tie: either of the tied pair). */
  best: readonly string[];
}

export interface World {
  seed: number;
  usage: UsageRecord[];
  profiles: ProjectProfile[];
  expectations: Expectation[];
}

function profileOf(family: Family, path: string, dependencies = family.dependencies): ProjectProfile {
  return {
    path,
    language: family.language,
    framework: family.framework,
    scope: family.scope,
    dependencies,
    manifestType: 'synthetic',
    classifiedAt: '2025-01-01T00:00:00.000Z',
    agentsmdHash: '',
  };
}

/** A grade from a true quality with noise: higher quality, better grades on average. */
function gradeFrom(quality: number, random: () => number): number {
  const noisy = quality + (random() + random() + random() - 1.5) * 0.5;
  if (noisy > 0.8) return 5;
  if (noisy > 0.5) return 2;
  if (noisy > 0.2) return 1;
  return -1;
}

interface SessionPlan {
  role: string;
  model: string;
  project: string;
  quality: number;
  cost: number;
  sessionId: string;
  /** Forced outcome for the lucky setup. */
  perfect?: boolean;
  commits?: number;
}

function session(plan: SessionPlan, random: () => number): UsageRecord {
  const { quality } = plan;
  const committing = COMMITTING_ROLES.has(plan.role);
  const commits = plan.commits ?? (committing ? 1 + Math.floor(random() * 3) : 0);
  const record: UsageRecord = {
    sessionId: plan.sessionId,
    agent: plan.role,
    model: plan.model,
    project: plan.project,
    firstAt: '2025-02-01T00:00:00.000Z',
    lastAt: '2025-02-01T01:00:00.000Z',
    toolCalls: 0,
    toolFailures: 0,
    commands: 0,
    commits,
    pushes: 0,
    bugs: 0,
    gradedCommits: 0,
    gradeSum: 0,
    csDelta: 0,
    messages: 4,
    tokensInput: 1000,
    tokensOutput: 200,
    tokensReasoning: 0,
    tokensCacheRead: 0,
    tokensCacheWrite: 0,
    cost: plan.cost,
  };
  const add = (name: keyof UsageRecord, amount: number) => {
    (record as unknown as Record<string, number>)[name] = ((record as unknown as Record<string, number | undefined>)[name] ?? 0) + amount;
  };
  const toolCalls = 10 + Math.floor(random() * 20);
  record.toolCalls = toolCalls;
  for (let i = 0; i < toolCalls; i += 1) if (!plan.perfect && random() < 0.04 + 0.12 * (1 - quality)) record.toolFailures += 1;
  const turns = 2 + Math.floor(random() * 4);
  add('turns', turns);
  for (let i = 0; i < turns; i += 1) if (!plan.perfect && random() < 0.25 * (1 - quality)) add('undoneTurns', 1);
  for (let c = 0; c < commits; c += 1) {
    if (plan.perfect || random() < 0.45) {
      add('userGradedCommits', 1);
      add('userGradeSum', plan.perfect ? 5 : gradeFrom(quality, random));
    }
    // Self-grades say nothing about quality: every setup rates itself good or excellent.
    add('selfGradedCommits', 1);
    add('selfGradeSum', random() < 0.5 ? 5 : 2);
    if (!plan.perfect) {
      const fate = random();
      if (fate < 0.2 * (1 - quality)) add('revertedCommits', 1);
      else if (fate < 0.5 * (1 - quality)) add('followUpFixCommits', 1);
      if (random() < 0.1 * (1 - quality)) record.bugs += 1;
    }
  }
  if (committing) {
    const runs = Math.floor(random() * 3);
    add('testRuns', runs);
    for (let i = 0; i < runs; i += 1) if (plan.perfect || random() < 0.5 + 0.5 * quality) add('testPasses', 1);
  }
  return record;
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

/** True qualities of the four models for one family × role, in a clear or tie situation. */
function qualities(situation: Situation, random: () => number): Record<string, number> {
  const top = 0.6 + 0.2 * random();
  const second = situation === 'tie' ? top : top - (0.15 + 0.15 * random());
  const rest = [second - (0.1 + 0.2 * random()), second - (0.1 + 0.2 * random())];
  const order = shuffled(MODELS, random);
  const values = [top, second, ...rest];
  return Object.fromEntries(order.map((model, i) => [model, Math.max(0.05, values[i] ?? 0)]));
}

const COSTS = [0.2, 0.4, 0.8];

function classify(quality: Record<string, number>): { situation: Expectation['situation']; best: string[] } {
  const ranked = Object.entries(quality).sort((a, b) => b[1] - a[1]);
  const [first, second] = ranked as [[string, number], [string, number]];
  if (first[1] === second[1]) return { situation: 'tie', best: [first[0], second[0]] };
  return { situation: first[1] - second[1] >= CLEAR_GAP ? 'clear' : 'in between', best: [first[0]] };
}

/** One world: its history, its project profiles, and the expected answer per target × role. */
export function generateWorld(seed: number): World {
  const random = seededRandom(seed);
  const usage: UsageRecord[] = [];
  const profiles: ProjectProfile[] = [];
  const truth = new Map<string, Record<string, number>>();
  let sessionNumber = 0;
  for (const family of FAMILIES) {
    const projects = [0, 1, 2].map((i) => profileOf(family, `/synthetic/${family.name}-${i}`, family.dependencies.slice(0, 2 + (i % 2))));
    profiles.push(...projects);
    for (const role of ROLES) {
      const situation: Situation = random() < 0.5 ? 'clear' : 'tie';
      const quality = qualities(situation, random);
      truth.set(`${family.name}\u0000${role}`, quality);
      // Equal cost for the two best (a cost tie), the others at random.
      const ranked = Object.entries(quality).sort((a, b) => b[1] - a[1]);
      const topCost = COSTS[Math.floor(random() * COSTS.length)] ?? 0.4;
      ranked.forEach(([model, q], rank) => {
        const cost = rank < 2 ? topCost : COSTS[Math.floor(random() * COSTS.length)] ?? 0.4;
        const sessions = 15 + Math.floor(random() * 25);
        for (let s = 0; s < sessions; s += 1) {
          sessionNumber += 1;
          const project = projects[s % projects.length]?.path ?? '';
          usage.push(session({ role, model, project, quality: q, cost, sessionId: `ses_${seed}_${sessionNumber}` }, random));
        }
      });
    }
    // Two perfect, cheap commits by a model nobody else uses.
    sessionNumber += 1;
    usage.push(session({ role: 'build', model: LUCKY_MODEL, project: projects[0]?.path ?? '', quality: 1, cost: 0.05, sessionId: `ses_${seed}_${sessionNumber}`, perfect: true, commits: 2 }, random));
  }

  const expectations: Expectation[] = [];
  for (const family of [...FAMILIES, UNSEEN_FAMILY]) {
    const target = profileOf(family, `/synthetic/${family.name}-new`, family.dependencies.slice(0, 2));
    for (const role of ROLES) {
      const known = truth.get(`${family.name}\u0000${role}`);
      // A family never seen is expected to behave like the known ones on average.
      const quality =
        known ??
        Object.fromEntries(MODELS.map((model) => [model, FAMILIES.reduce((sum, f) => sum + (truth.get(`${f.name}\u0000${role}`)?.[model] ?? 0), 0) / FAMILIES.length]));
      expectations.push({ target, role, quality, ...classify(quality) });
    }
  }
  return { seed, usage, profiles, expectations };
}
