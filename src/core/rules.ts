/**
 * Pure scoring rules: XP awards, level-up, bugs and halting, grades and CS bounds, trust tiers and
 * CS labels. Every number lives here, with a name; plugin options may override the awards.
 */
import type { AgentOp, AgentRecord, AgentStatus, Grade, TrustTier } from './types.js';
import { GRADES } from './types.js';

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
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new Error(`scoring rule "${key}" must be a number >= 0, got ${JSON.stringify(value)}`);
    }
    rules[key as keyof ScoringRules] = value;
  }
  if (rules.xpPerLevelFactor <= 0) throw new Error('scoring rule "xpPerLevelFactor" must be greater than 0');
  return rules;
}

export function isGrade(value: unknown): value is Grade {
  return typeof value === 'number' && (GRADES as readonly number[]).includes(value);
}

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

/** Applies XP with level-ups; leftover XP is kept. A halted agent earns nothing. */
function addXp(agent: AgentRecord, amount: number, rules: ScoringRules): void {
  if (agent.halted || amount <= 0) return;
  agent.xp += amount;
  while (agent.xp >= rules.xpPerLevelFactor * agent.sp && agent.sp > 0) {
    agent.xp -= rules.xpPerLevelFactor * agent.sp;
    agent.sp += 1;
  }
}

/** The CS change a commit's two grades ask for (-2..+10), before the bounds are applied. */
export function gradeDelta(agentGrade: Grade, userGrade: Grade): number {
  return agentGrade + userGrade;
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
      if (agent.sp <= 0) agent.halted = true;
      break;
    case 'grade': {
      // The cap limits gains only: losing SP never lowers CS by itself, and a grade never drags CS
      // below what the cap allows when it was already above it.
      const target = agent.cs + op.delta;
      const cap = Math.max(0, agent.sp) * rules.csCapPerSp;
      if (op.delta >= 0) agent.cs = Math.max(agent.cs, Math.min(target, cap));
      else agent.cs = Math.max(0, target);
      break;
    }
    case 'revive':
      agent.sp = 1;
      agent.halted = false;
      break;
  }
}

export function trustTier(sp: number): TrustTier {
  if (sp >= 10) return 'EXPERT';
  if (sp >= 7) return 'SENIOR';
  if (sp >= 4) return 'ESTABLISHED';
  if (sp >= 2) return 'JUNIOR';
  return 'PROBATION';
}

export function csLabel(cs: number): string {
  if (cs >= 100) return 'God-mode';
  if (cs >= 80) return 'Strong';
  if (cs >= 60) return 'Neutral';
  if (cs >= 40) return 'Declining';
  if (cs >= 20) return 'Critical';
  if (cs > 0) return 'Breaking';
  return 'Broken';
}

export function toStatus(agent: AgentRecord, rules: ScoringRules): AgentStatus {
  return {
    ...agent,
    tier: trustTier(agent.sp),
    csLabel: csLabel(agent.cs),
    xpToLevel: Math.max(0, rules.xpPerLevelFactor * Math.max(agent.sp, 1) - agent.xp),
  };
}
