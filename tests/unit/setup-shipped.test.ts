/**
 * What the package ships for OpenCode: skills OpenCode will list, agent definitions that use only
 * fields of OpenCode's agent schema, and scoring rules in AGENTS.md that match the rules the code
 * applies. (The real binary checks the same files in tests/e2e/install.test.ts.)
 */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { csLabel, DEFAULT_RULES, trustTier } from '../../src/core/rules.js';
import { GRADES } from '../../src/core/types.js';
import { TRACK_AGENTS_FILE } from '../../src/provisioning/agents-md.js';
import { readShippedAgents } from '../../src/provisioning/agents.js';
import { shippedSkills, SKILL_FILE, SKILLS_FOLDER } from '../../src/provisioning/skills.js';
import { ROOT } from '../helpers/sandbox.js';

/** The YAML frontmatter's `key: value` lines (the skills use only plain one-line values). */
function frontmatter(text: string): Record<string, string> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!match?.[1]) throw new Error('no frontmatter');
  return Object.fromEntries(match[1].split('\n').map((line) => [line.slice(0, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1).trim()]));
}

describe('shipped skills', () => {
  const skills = shippedSkills(ROOT);

  it('are the two skills, each with a name matching its folder and a description', () => {
    expect(skills).toEqual(['agile-spec-to-build', 'structured-review']);
    for (const name of skills) {
      const meta = frontmatter(fs.readFileSync(path.join(ROOT, SKILLS_FOLDER, name, SKILL_FILE), 'utf8'));
      expect(meta.name).toBe(name);
      expect(meta.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(meta.description?.length ?? 0).toBeGreaterThan(20);
    }
  });

  it('tell agents to search prior art while brainstorming and planning and to grade every commit', () => {
    const text = fs.readFileSync(path.join(ROOT, SKILLS_FOLDER, 'agile-spec-to-build', SKILL_FILE), 'utf8');
    const section = (heading: string) => text.split(/^## /m).find((part) => part.startsWith(heading)) ?? '';
    expect(section('2. Brainstorm')).toContain('`prior-art`');
    expect(section('3. Plan')).toContain('`prior-art`');
    expect(section('4. Build')).toMatch(/After EACH commit, call `grade-commit`/);
  });
});

describe('shipped agents', () => {
  const agents = readShippedAgents(ROOT);
  const ACTIONS = ['allow', 'ask', 'deny'];

  it('are the four agents, each using only description, mode, prompt, temperature and permission', () => {
    expect(Object.keys(agents).sort()).toEqual(['architect-plan', 'brainstorm', 'engineer-build', 'spec-agent']);
    for (const definition of Object.values(agents)) {
      expect(Object.keys(definition).sort()).toEqual(['description', 'mode', 'permission', 'prompt', 'temperature']);
      expect(['primary', 'subagent', 'all']).toContain(definition.mode);
      expect(typeof definition.description).toBe('string');
      expect(typeof definition.prompt).toBe('string');
      expect(definition.temperature).toBeGreaterThanOrEqual(0);
      expect(definition.temperature).toBeLessThanOrEqual(1);
    }
  });

  it('give permissions as actions or pattern maps of actions', () => {
    for (const definition of Object.values(agents)) {
      for (const [tool, rule] of Object.entries(definition.permission as Record<string, unknown>)) {
        const actions = typeof rule === 'string' ? [rule] : Object.values(rule as Record<string, unknown>);
        expect({ tool, actions: actions.filter((action) => !ACTIONS.includes(action as string)) }).toEqual({ tool, actions: [] });
      }
    }
  });
});

describe('the shipped scoring rules (AGENTS.md section)', () => {
  const text = fs.readFileSync(path.join(ROOT, TRACK_AGENTS_FILE), 'utf8');
  const xpFor = (label: string) => Number(new RegExp(`^- ${label}: \\+(\\d+) XP`, 'm').exec(text)?.[1]);

  it('state the XP awards the rules apply', () => {
    expect(xpFor('Successful tool call')).toBe(DEFAULT_RULES.xpPerToolCall);
    expect(xpFor('Slash command')).toBe(DEFAULT_RULES.xpPerCommand);
    expect(xpFor('Commit')).toBe(DEFAULT_RULES.xpPerCommit);
    expect(xpFor('Push')).toBe(DEFAULT_RULES.xpPerPush);
    expect(xpFor('Graded commit')).toBe(DEFAULT_RULES.xpPerGradedCommit);
    expect(text).toContain(`while XP >= ${DEFAULT_RULES.xpPerLevelFactor} x SP`);
    expect(text).toContain(`above SP x ${DEFAULT_RULES.csCapPerSp}`);
    expect(text).toContain(`SP ${DEFAULT_RULES.initialSp}, XP ${DEFAULT_RULES.initialXp}, CS ${DEFAULT_RULES.initialCs}`);
  });

  /** `0-1 NAME, 2-3 OTHER, 10+ TOP` → every value in each range (an open range: its first few values). */
  function ranges(line: string): { value: number; name: string }[] {
    return [...line.matchAll(/(\d+)(?:-(\d+)|\+) ([A-Za-z-]+)/g)].flatMap((match) => {
      const from = Number(match[1]);
      const to = match[2] === undefined ? from + 5 : Number(match[2]);
      return Array.from({ length: to - from + 1 }, (_, offset) => ({ value: from + offset, name: match[3] as string }));
    });
  }

  it('state the grades, trust tiers and CS labels the rules use', () => {
    const grades = /^- Grades: (.*)$/m.exec(text)?.[1] ?? '';
    expect([...grades.matchAll(/(-?\d+) [a-z]+/g)].map((match) => Number(match[1]))).toEqual([...GRADES]);
    const tiers = ranges(/^- (0-1 PROBATION.*)$/m.exec(text)?.[1] ?? '');
    expect(tiers.length).toBeGreaterThan(10);
    for (const { value, name } of tiers) expect({ value, tier: trustTier(value) }).toEqual({ value, tier: name });
    const labels = ranges(/^- (100\+ God-mode.*)$/m.exec(text)?.[1] ?? '');
    expect(labels.length).toBeGreaterThan(100);
    for (const { value, name } of labels) expect({ value, label: csLabel(value) }).toEqual({ value, label: name });
    expect(csLabel(0)).toBe('Broken');
    expect(text).toMatch(/, 0 Broken\.?$/m);
  });
});
