import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  applyAgentOp,
  boundedCs,
  CS_LABELS,
  csLabel,
  DEFAULT_RULES,
  gradeDelta,
  isGrade,
  MIN_CS,
  newAgent,
  resolveRules,
  REVIVE_SP,
  toStatus,
  trustTier,
  uncreditedGradeDelta,
} from '../../src/core/rules.js';
import type { ScoringRules } from '../../src/core/rules.js';
import { GRADES } from '../../src/core/types.js';
import type { AgentOp, AgentRecord, Grade } from '../../src/core/types.js';

const rules = DEFAULT_RULES;
const level = (sp: number, r: ScoringRules = rules) => r.xpPerLevelFactor * sp;

function agentWith(fields: Partial<AgentRecord>, r: ScoringRules = rules): AgentRecord {
  return { ...newAgent('a', '2025-01-01T00:00:00.000Z', r), ...fields };
}

function run(agent: AgentRecord, ops: AgentOp[], r: ScoringRules = rules): AgentRecord {
  for (const op of ops) applyAgentOp(agent, op, r);
  return agent;
}

describe('a new agent', () => {
  it('starts with SP 1, XP 0, CS 60, no commits, no bugs, not halted', () => {
    expect(newAgent('build', 'now', rules)).toMatchObject({ id: 'build', sp: 1, xp: 0, cs: 60, commits: 0, bugs: 0, halted: false });
  });

  it('starts from overridden rules', () => {
    const custom = resolveRules({ initialSp: 3, initialCs: 10 });
    expect(newAgent('build', 'now', custom)).toMatchObject({ sp: 3, cs: 10 });
  });
});

describe('XP and levels', () => {
  it('levels up when XP reaches 10 x SP and keeps the leftover XP', () => {
    const agent = run(agentWith({}), [{ kind: 'xp', amount: level(1) + 3 }]);
    expect(agent).toMatchObject({ sp: 2, xp: 3 });
  });

  it('stays at the level just below the threshold', () => {
    expect(run(agentWith({}), [{ kind: 'xp', amount: level(1) - 1 }])).toMatchObject({ sp: 1, xp: level(1) - 1 });
  });

  it('climbs several levels at once, carrying over between them', () => {
    const amount = level(1) + level(2) + level(3) + 4;
    expect(run(agentWith({}), [{ kind: 'xp', amount }])).toMatchObject({ sp: 4, xp: 4 });
  });

  it('gives the same result whether XP arrives in one award or many', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 30 }), (awards) => {
        const stepwise = run(agentWith({}), awards.map((amount) => ({ kind: 'xp', amount })));
        const once = run(agentWith({}), [{ kind: 'xp', amount: awards.reduce((a, b) => a + b, 0) }]);
        expect(stepwise).toEqual(once);
        expect(stepwise.xp).toBeLessThan(level(stepwise.sp));
      }),
    );
  });

  it('ignores zero and negative awards', () => {
    expect(run(agentWith({ xp: 5 }), [{ kind: 'xp', amount: 0 }, { kind: 'xp', amount: -4 }])).toMatchObject({ sp: 1, xp: 5 });
  });

  it('gives a halted agent no XP and no level', () => {
    const agent = run(agentWith({ sp: 0, halted: true, xp: 2 }), [{ kind: 'xp', amount: level(5) }]);
    expect(agent).toMatchObject({ sp: 0, xp: 2, halted: true });
  });

  it('counts commits without touching XP', () => {
    expect(run(agentWith({}), [{ kind: 'commits', amount: 2 }])).toMatchObject({ commits: 2, xp: 0 });
  });
});

describe('bugs, halt and revive', () => {
  it('takes one SP and counts the bug', () => {
    expect(run(agentWith({ sp: 3 }), [{ kind: 'bug' }])).toMatchObject({ sp: 2, bugs: 1, halted: false });
  });

  it('halts the agent when SP reaches 0', () => {
    expect(run(agentWith({ sp: 1 }), [{ kind: 'bug' }])).toMatchObject({ sp: 0, bugs: 1, halted: true });
  });

  it('needs as many bugs as the agent has SP to halt it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), (sp) => {
        const agent = agentWith({ sp });
        for (let i = 1; i < sp; i += 1) applyAgentOp(agent, { kind: 'bug' }, rules);
        expect(agent.halted).toBe(false);
        applyAgentOp(agent, { kind: 'bug' }, rules);
        expect(agent).toMatchObject({ halted: true, bugs: sp, sp: 0 });
      }),
    );
  });

  it('revives a halted agent with SP 1, keeping XP and CS', () => {
    const agent = run(agentWith({ sp: 1, xp: 7, cs: 83 }), [{ kind: 'bug' }, { kind: 'bug' }, { kind: 'revive' }]);
    expect(agent).toMatchObject({ sp: REVIVE_SP, xp: 7, cs: 83, bugs: 2, halted: false });
  });

  it('earns XP again after a revive', () => {
    const agent = run(agentWith({ sp: 1 }), [{ kind: 'bug' }, { kind: 'xp', amount: 4 }, { kind: 'revive' }, { kind: 'xp', amount: 4 }]);
    expect(agent).toMatchObject({ sp: 1, xp: 4, halted: false });
  });

  it('never resets a working agent on revive', () => {
    expect(run(agentWith({ sp: 5, xp: 9 }), [{ kind: 'revive' }])).toMatchObject({ sp: 5, xp: 9, halted: false });
  });
});

describe('grades and CS', () => {
  it('accepts exactly -1, 1, 2 and 5', () => {
    expect(GRADES.filter(isGrade)).toEqual([-1, 1, 2, 5]);
    for (const value of [0, 3, 4, -2, 6, 2.5, Number.NaN, '2', null]) expect(isGrade(value)).toBe(false);
  });

  it('moves CS by -2..+10 per graded commit', () => {
    const deltas = GRADES.flatMap((a) => GRADES.map((u) => gradeDelta(a, u)));
    expect(Math.min(...deltas)).toBe(-2);
    expect(Math.max(...deltas)).toBe(10);
  });

  it('adds both grades to CS within the bounds', () => {
    const grades = fc.constantFrom<Grade>(...GRADES);
    fc.assert(
      fc.property(grades, grades, fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 1000 }), (a, u, sp, cs) => {
        const agent = run(agentWith({ sp, cs }), [{ kind: 'grade', delta: gradeDelta(a, u) }]);
        const delta = gradeDelta(a, u);
        expect(agent.cs).toBeGreaterThanOrEqual(MIN_CS);
        expect(agent.cs - cs).toBeGreaterThanOrEqual(Math.min(delta, 0));
        expect(agent.cs - cs).toBeLessThanOrEqual(Math.max(delta, 0));
        if (cs + delta >= MIN_CS && cs + delta <= sp * rules.csCapPerSp) expect(agent.cs).toBe(cs + delta);
      }),
    );
  });

  it('never takes CS above SP x 100', () => {
    expect(run(agentWith({ sp: 1, cs: 96 }), [{ kind: 'grade', delta: 10 }]).cs).toBe(1 * rules.csCapPerSp);
    expect(run(agentWith({ sp: 2, cs: 96 }), [{ kind: 'grade', delta: 10 }]).cs).toBe(106);
  });

  it('never takes CS below 0', () => {
    expect(run(agentWith({ cs: 1 }), [{ kind: 'grade', delta: -2 }]).cs).toBe(MIN_CS);
    expect(run(agentWith({ cs: 0 }), [{ kind: 'grade', delta: -1 }]).cs).toBe(MIN_CS);
  });

  it('does not lower CS when SP falls below the cap, and a gain cannot lower it either', () => {
    const agent = run(agentWith({ sp: 3, cs: 250 }), [{ kind: 'bug' }, { kind: 'bug' }]);
    expect(agent.cs).toBe(250);
    expect(boundedCs(250, 10, agent.sp, rules)).toBe(250);
    expect(boundedCs(250, -2, agent.sp, rules)).toBe(248);
  });

  it('still moves the CS of a halted agent', () => {
    expect(run(agentWith({ sp: 0, halted: true, cs: 50 }), [{ kind: 'grade', delta: -2 }]).cs).toBe(48);
  });
});

describe('grades of a commit that earned nothing', () => {
  it("move nothing for the agent's own grade; the user's bad grade costs, a good one earns nothing", () => {
    expect(GRADES.map((grade) => uncreditedGradeDelta(grade, 'agent'))).toEqual([0, 0, 0, 0]);
    expect(GRADES.map((grade) => uncreditedGradeDelta(grade, 'user'))).toEqual([-1, 0, 0, 0]);
  });

  it('earn no graded-commit XP, while the CS move still applies', () => {
    const agent = run(agentWith({ sp: 2, xp: 3, cs: 70 }), [{ kind: 'grade', delta: -1, earnsXp: false }]);
    expect(agent).toMatchObject({ xp: 3, cs: 69, sp: 2 });
    // The same grade of a credited commit earns it.
    expect(run(agentWith({ sp: 2, xp: 3, cs: 70 }), [{ kind: 'grade', delta: -1 }])).toMatchObject({ xp: 3 + rules.xpPerGradedCommit, cs: 69 });
  });
});

describe('tiers and labels', () => {
  it('maps SP to trust tiers at the documented boundaries', () => {
    const table: [number, string][] = [
      [-2, 'PROBATION'], [0, 'PROBATION'], [1, 'PROBATION'], [2, 'JUNIOR'], [3, 'JUNIOR'], [4, 'ESTABLISHED'],
      [6, 'ESTABLISHED'], [7, 'SENIOR'], [9, 'SENIOR'], [10, 'EXPERT'], [42, 'EXPERT'],
    ];
    for (const [sp, tier] of table) expect(trustTier(sp)).toBe(tier);
  });

  it('maps CS to labels at the documented boundaries', () => {
    const table: [number, string][] = [
      [0, 'Broken'], [0.5, 'Breaking'], [1, 'Breaking'], [19, 'Breaking'], [20, 'Critical'], [39, 'Critical'], [40, 'Declining'],
      [59, 'Declining'], [60, 'Neutral'], [79, 'Neutral'], [80, 'Strong'], [99, 'Strong'], [100, 'God-mode'], [900, 'God-mode'],
    ];
    for (const [cs, label] of table) expect(csLabel(cs)).toBe(label);
    expect(CS_LABELS.map((entry) => entry.minCs)).toEqual([100, 80, 60, 40, 20]);
  });

  it('derives the status: tier, label and XP to the next level', () => {
    expect(toStatus(agentWith({ sp: 2, xp: 5, cs: 85 }), rules)).toMatchObject({ tier: 'JUNIOR', csLabel: 'Strong', xpToLevel: level(2) - 5 });
  });
});

describe('rule overrides', () => {
  it('level-up follows an overridden factor', () => {
    const custom = resolveRules({ xpPerLevelFactor: 3 });
    expect(run(agentWith({}, custom), [{ kind: 'xp', amount: 3 + 6 + 1 }], custom)).toMatchObject({ sp: 3, xp: 1 });
  });

  it('refuses unknown rules and bad numbers with a clear message', () => {
    expect(() => resolveRules({ xpPerCommitt: 5 })).toThrow(/unknown scoring rule "xpPerCommitt"/);
    expect(() => resolveRules({ xpPerCommit: -1 })).toThrow(/must be a number from 0 to/);
    expect(() => resolveRules({ xpPerLevelFactor: 0 })).toThrow(/greater than 0/);
  });

  it('refuses a rule of 1e300, which would make every sum astronomic', () => {
    expect(() => resolveRules({ xpPerCommit: 1e300 })).toThrow(/scoring rule "xpPerCommit" must be a number from 0 to/);
  });
});

describe('level-up over any stored XP', () => {
  /** The rule as DESIGN.md words it, one level at a time: the expected value, computed apart from the code. */
  function levelStepwise(sp: number, xp: number, factor: number): { sp: number; xp: number } {
    while (xp >= factor * sp) {
      xp -= factor * sp;
      sp += 1;
    }
    return { sp, xp };
  }

  it('gives the exact stepwise result for a large XP (a trillion)', () => {
    const expected = levelStepwise(1, 1e12 + 1, rules.xpPerLevelFactor);
    expect(run(agentWith({ xp: 1e12 }), [{ kind: 'xp', amount: 1 }])).toMatchObject(expected);
  });

  it('returns for XP 1e300 (imported or stored) with finite SP and XP below the next level', () => {
    const agent = run(agentWith({ xp: 1e300 }), [{ kind: 'xp', amount: 1 }]);
    expect(Number.isFinite(agent.sp)).toBe(true);
    expect(agent.sp).toBeGreaterThan(1e149);
    expect(agent.xp).toBeGreaterThanOrEqual(0);
    expect(agent.xp).toBeLessThan(level(agent.sp));
  });

  it('matches the stepwise rule for any XP and factor', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 200_000 }), fc.integer({ min: 1, max: 30 }), (sp, xp, factor) => {
        const custom = resolveRules({ xpPerLevelFactor: factor });
        const agent = run(agentWith({ sp, xp: 0 }, custom), [{ kind: 'xp', amount: xp }], custom);
        expect({ sp: agent.sp, xp: agent.xp }).toEqual(levelStepwise(sp, xp, factor));
      }),
    );
  });
});
