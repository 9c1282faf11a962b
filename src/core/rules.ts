/**
 * Pure scoring rules: XP awards, level-up, bugs and halting, grades and CS bounds, trust tiers and
 * CS labels. Every number lives here, with a name; plugin options may override the awards.
 */
import type { AgentOp, AgentRecord, AgentStatus, Grade, TrustTier } from './types.js';
import { GRADES } from './types.js';

/** The numbers behind XP, levels and CS; every one may be overridden by the plugin option `rules`. */
export interface ScoringRules {
  /** XP for a successful tool call (the tracker's own tools earn none). */
  xpPerToolCall: number;
  xpPerCommand: number;
  xpPerCommit: number;
  xpPerPush: number;
  xpPerGradedCommit: number;
  /** XP needed per level is this many times the current SP. */
  xpPerLevelFactor: number;
  /** CS may never exceed SP times this. */
  csCapPerSp: number;
  initialSp: number;
  initialXp: number;
  initialCs: number;
}

/** The default rules (DESIGN.md). */
export const DEFAULT_RULES: Readonly<ScoringRules> = Object.freeze({
  xpPerToolCall: 1,
  xpPerCommand: 2,
  xpPerCommit: 5,
  xpPerPush: 10,
  xpPerGradedCommit: 1,
  xpPerLevelFactor: 10,
  csCapPerSp: 100,
  initialSp: 1,
  initialXp: 0,
  initialCs: 60,
});

const RULE_KEYS = Object.keys(DEFAULT_RULES) as (keyof ScoringRules)[];

/** The largest value a rule may take: far above any sensible award, far below where sums lose their integers. */
export const MAX_RULE_VALUE = 1_000_000;

/** Merges user overrides into the defaults; throws a clear error on an unknown key or a bad number. */
export function resolveRules(overrides: unknown): ScoringRules {
  if (overrides === undefined || overrides === null) return { ...DEFAULT_RULES };
  if (typeof overrides !== 'object' || Array.isArray(overrides)) {
    throw new Error('option "rules" must be an object such as {"xpPerCommit": 5}');
  }
  const rules: ScoringRules = { ...DEFAULT_RULES };
  for (const [key, value] of Object.entries(overrides)) {
    if (!RULE_KEYS.includes(key as keyof ScoringRules)) {
      throw new Error(`unknown scoring rule "${key}"; known rules: ${RULE_KEYS.join(', ')}`);
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_RULE_VALUE) {
      throw new Error(`scoring rule "${key}" must be a number from 0 to ${MAX_RULE_VALUE}, got ${JSON.stringify(value)}`);
    }
    rules[key as keyof ScoringRules] = value;
  }
  if (rules.xpPerLevelFactor <= 0) throw new Error('scoring rule "xpPerLevelFactor" must be greater than 0');
  return rules;
}

/** Whether a value is one of the four grades (-1, 1, 2, 5). */
export function isGrade(value: unknown): value is Grade {
  return typeof value === 'number' && (GRADES as readonly number[]).includes(value);
}

/** SP a revived agent restarts with, whatever `initialSp` says: revival is a fresh probation. */
export const REVIVE_SP = 1;
/** An agent halts when a bug report takes its SP to this or below. */
export const HALT_AT_SP = 0;
/** The lowest CS a grade can leave. */
export const MIN_CS = 0;

/** Trust tiers by minimum SP, highest first. */
export const TRUST_TIERS: readonly { minSp: number; tier: TrustTier }[] = [
  { minSp: 10, tier: 'EXPERT' },
  { minSp: 7, tier: 'SENIOR' },
  { minSp: 4, tier: 'ESTABLISHED' },
  { minSp: 2, tier: 'JUNIOR' },
];
const LOWEST_TIER: TrustTier = 'PROBATION';

/** CS labels by minimum CS, highest first; anything at or below MIN_CS is "Broken". */
export const CS_LABELS: readonly { minCs: number; label: string }[] = [
  { minCs: 100, label: 'God-mode' },
  { minCs: 80, label: 'Strong' },
  { minCs: 60, label: 'Neutral' },
  { minCs: 40, label: 'Declining' },
  { minCs: 20, label: 'Critical' },
];
const BREAKING_LABEL = 'Breaking';
const BROKEN_LABEL = 'Broken';

/** A fresh agent as the rules start it. */
export function newAgent(id: string, now: string, rules: ScoringRules): AgentRecord {
  return {
    id,
    sp: rules.initialSp,
    xp: rules.initialXp,
    cs: rules.initialCs,
    commits: 0,
    bugs: 0,
    halted: false,
    createdAt: now,
    updatedAt: now,
  };
}

/** Level-ups done one at a time after the closed-form jump; a few absorb its rounding. */
const STEPWISE_LEVEL_UPS = 8;

/** XP that `levels` level-ups starting at `sp` cost: factor x (sp + (sp+1) + ... + (sp+levels-1)). */
function levelCost(sp: number, levels: number, factor: number): number {
  return factor * (levels * sp + (levels * (levels - 1)) / 2);
}

/**
 * How many levels `xp` surely pays for from `sp` (a few short of the exact count, which the
 * stepwise loop finishes): the positive root of the level cost, so XP 1e300 costs no more than XP 30.
 */
function levelsSurelyAffordable(sp: number, xp: number, factor: number): number {
  const b = 2 * sp - 1;
  const root = (-b + Math.sqrt(b * b + (8 * xp) / factor)) / 2;
  if (!Number.isFinite(root)) return 0;
  return Math.max(0, Math.floor(root) - 2);
}

/**
 * Applies XP with level-ups; leftover XP is kept. A halted agent earns nothing and never levels up.
 * Bounded whatever the stored XP: a closed-form jump, then at most STEPWISE_LEVEL_UPS single steps.
 */
function addXp(agent: AgentRecord, amount: number, rules: ScoringRules): void {
  if (agent.halted || amount <= 0) return;
  agent.xp += amount;
  // sp > 0: an agent whose SP was lowered by bugs without halting has a zero-cost level; it never levels.
  if (!(agent.sp > 0) || !(rules.xpPerLevelFactor > 0) || !Number.isFinite(agent.xp)) return;
  const jump = levelsSurelyAffordable(agent.sp, agent.xp, rules.xpPerLevelFactor);
  if (jump > 0) {
    agent.xp = Math.max(0, agent.xp - levelCost(agent.sp, jump, rules.xpPerLevelFactor));
    agent.sp += jump;
  }
  for (let step = 0; step < STEPWISE_LEVEL_UPS && agent.xp >= rules.xpPerLevelFactor * agent.sp; step += 1) {
    agent.xp -= rules.xpPerLevelFactor * agent.sp;
    agent.sp += 1;
  }
  // Only rounding at astronomic (forged) values can leave more: keep the invariant XP < the next level's cost.
  if (agent.xp >= rules.xpPerLevelFactor * agent.sp) agent.xp = 0;
}

/** The CS change a commit's two grades ask for (-2..+10), before the bounds are applied. */
export function gradeDelta(agentGrade: Grade, userGrade: Grade): number {
  return agentGrade + userGrade;
}

/**
 * The CS move one grade of a commit that earned no credit (an amend of a credited change, a
 * whitespace-only or empty commit, one past the turn's limit) asks for. The agent's self-grade of
 * it moves nothing: amending and then grading 5 would otherwise farm CS. The user's grade is the
 * user's judgement of the agent: a bad one still costs CS (an amend must not shield work from it,
 * and `/grade` without a hash lands on the newest commit), a good one earns nothing.
 */
export function uncreditedGradeDelta(grade: Grade, source: 'agent' | 'user'): number {
  return source === 'user' ? Math.min(0, grade) : 0;
}

/**
 * CS after a grade change. A gain stops at SP x csCapPerSp (and never lowers a CS that was already
 * above the cap, since losing SP must not cost CS by itself); a loss stops at MIN_CS.
 */
export function boundedCs(cs: number, delta: number, sp: number, rules: ScoringRules): number {
  const target = cs + delta;
  if (delta >= 0) {
    const cap = Math.max(0, sp) * rules.csCapPerSp;
    return Math.max(cs, Math.min(target, cap));
  }
  return Math.max(MIN_CS, target);
}

/**
 * Applies one op to an agent in place. The op sequence is replayed inside the write transaction
 * on the value stored at that moment, so concurrent writers never lose each other's changes.
 */
export function applyAgentOp(agent: AgentRecord, op: AgentOp, rules: ScoringRules): void {
  switch (op.kind) {
    case 'xp':
      addXp(agent, op.amount, rules);
      break;
    case 'commits':
      agent.commits += op.amount;
      break;
    case 'bug':
      agent.sp -= 1;
      agent.bugs += 1;
      if (agent.sp <= HALT_AT_SP) agent.halted = true;
      break;
    case 'grade':
      // A graded commit: both grades move CS, and the grading itself earns XP, unless the commit earned nothing.
      agent.cs = boundedCs(agent.cs, op.delta, agent.sp, rules);
      if (op.earnsXp !== false) addXp(agent, rules.xpPerGradedCommit, rules);
      break;
    case 'revive':
      // Replayed at flush time: if another process revived the agent first, this one changes nothing
      // (a working agent's SP must never be reset).
      if (!agent.halted) break;
      agent.sp = REVIVE_SP;
      agent.halted = false;
      break;
  }
}

/** The trust tier of an SP value: 0-1 PROBATION, 2-3 JUNIOR, 4-6 ESTABLISHED, 7-9 SENIOR, 10+ EXPERT. */
export function trustTier(sp: number): TrustTier {
  return TRUST_TIERS.find((entry) => sp >= entry.minSp)?.tier ?? LOWEST_TIER;
}

/** The label of a CS value, from "God-mode" (100+) down to "Broken" (0). */
export function csLabel(cs: number): string {
  const found = CS_LABELS.find((entry) => cs >= entry.minCs);
  if (found) return found.label;
  return cs > MIN_CS ? BREAKING_LABEL : BROKEN_LABEL;
}

/** What readers see of an agent: the record plus its tier, CS label and XP to the next level. */
export function toStatus(agent: AgentRecord, rules: ScoringRules): AgentStatus {
  return {
    ...agent,
    tier: trustTier(agent.sp),
    csLabel: csLabel(agent.cs),
    xpToLevel: Math.max(0, rules.xpPerLevelFactor * Math.max(agent.sp, 1) - agent.xp),
  };
}
