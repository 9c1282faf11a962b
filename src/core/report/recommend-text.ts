/** The recommendation as short markdown, for the terminal and for the model (the agent tool). */
import { UNKNOWN } from '../types.js';
import type { Recommendation, RoleRecommendation, ScoredSetup, WorthTrying } from './recommend.js';
import { fewOf } from './recommend-why.js';
import { formatDollars, plural } from './numbers.js';

function describeProject(recommendation: Recommendation): string {
  const { project } = recommendation;
  const facts = [`language ${project.language}`, `framework ${project.framework}`, `scope ${project.scope}`];
  if (project.dependencies.length > 0) facts.push(project.dependencies.length === 1 ? '1 dependency' : `${project.dependencies.length} dependencies`);
  const unclassified = [project.language, project.framework, project.scope].every((fact) => fact === UNKNOWN)
    ? ' (not classified: add a manifest, or state Language, Framework and Scope in its AGENTS.md)'
    : '';
  return `Project ${project.path}: ${facts.join(', ')}${unclassified}.`;
}

/**
 * "$0.123 per accepted commit"; "no accepted commit to price" when none held; "cost unknown for 3 of
 * its 40 sessions" when part of its priced work has no known price (sessions that spent nothing count
 * on neither side), "cost unknown" when none has; "no cost recorded" when its sessions recorded
 * neither a cost nor tokens to price.
 */
export function describeCost(setup: ScoredSetup): string {
  if (setup.costPerAcceptedCommit !== null) return `${formatDollars(setup.costPerAcceptedCommit)} per accepted commit${setup.costEstimated ? ' (estimated)' : ''}`;
  if (setup.unpricedSessions === 0 && setup.pricedSessions === 0) return 'no cost recorded';
  if (setup.acceptedCommits === 0) return 'no accepted commit to price';
  return setup.pricedSessions > 0 ? `cost unknown for ${setup.unpricedSessions} of its ${plural(setup.unpricedSessions + setup.pricedSessions, 'session')}` : 'cost unknown';
}

/** "120 commits"; "12 sessions" for a setup that made none (a role that plans or reviews). */
export function describeWork(setup: Pick<ScoredSetup, 'n' | 'sessions'>): string {
  return setup.n > 0 ? plural(setup.n, 'commit') : plural(setup.sessions, 'session');
}

/** "build: m/new instead of m/a — score 61.2 (80%: 50.1-72.3), 5 commits: <its why>; about 12 more sessions would settle it". */
export function describeTrial(trial: WorthTrying): string {
  const interval = `${trial.interval[0].toFixed(1)}-${trial.interval[1].toFixed(1)}`;
  return `${trial.agent}: ${trial.model} instead of ${trial.insteadOf} — score ${trial.score.toFixed(1)} (80%: ${interval}), ${describeWork(trial)}: ${trial.why}; about ${plural(trial.sessionsToSettle, 'more session')} would settle it`;
}

/** "score 72.4 (80%: 66.0-78.1), 120 commits". */
export function describeScore(setup: ScoredSetup): string {
  return `score ${setup.score.toFixed(1)} (80%: ${setup.interval[0].toFixed(1)}-${setup.interval[1].toFixed(1)}), ${describeWork(setup)}`;
}

/**
 * The chance shown in words, in whole percent rounded DOWN: the labels start at exact lines (80% likely,
 * 95% clear), so 0.797 must read 79% beside "close call", never 80%, and no pick reads "100% likely".
 */
function percentLikely(probability: number): number {
  return Math.floor(probability * 100 + 1e-9);
}

/** "clear (94% likely the best)", or "only model used in this role" when there is nothing to compare. */
export function describeConfidence(role: RoleRecommendation): string {
  const own = role.pick.n > 0 ? role.pick.n : role.pick.sessions;
  const unit = role.pick.n > 0 ? 'commit' : 'session';
  const note = role.thinEvidence ? `, thin evidence: ${fewOf(own, unit)}` : '';
  if (role.runnerUp === null) return `only model used in this role, so nothing to compare it with${note}`;
  const chance = `${percentLikely(role.probabilityBest)}% likely the best`;
  if (!role.comparable) return `not comparable yet with ${role.runnerUp.model}: they never did the same kind of task (${chance}${note})`;
  if (role.tie) {
    // Equal scores say nothing about a setup that has no work on projects like this one: its score is the
    // role's average, not its record here. Only when both have such work (or neither) would either do.
    const seen = (setup: ScoredSetup): boolean => setup.similarity > 0;
    const unseen = !seen(role.pick) && [role.runnerUp, ...role.alternatives].some(seen) ? role.pick : seen(role.pick) && !seen(role.runnerUp) ? role.runnerUp : undefined;
    if (unseen) {
      return `no clear difference from ${role.runnerUp.model} yet, but ${unseen.model} has no work on projects like this one to show (${chance}${note})`;
    }
    return `a tie with ${role.runnerUp.model}: either would do (${chance}${note})`;
  }
  return `${role.confidence} (${chance}${note})`;
}

function roleLines(role: RoleRecommendation): string[] {
  const { pick, runnerUp } = role;
  const lines = [
    `- ${role.agent}: ${pick.model} — ${describeConfidence(role)}`,
    `    ${describeScore(pick)}, ${describeCost(pick)}`,
    `    why: ${pick.why}`,
  ];
  if (role.caveat) lines.push(`    caveat: ${role.caveat}`);
  if (runnerUp) {
    lines.push(`    runner-up: ${runnerUp.model} — ${describeScore(runnerUp)}, ${describeCost(runnerUp)}`);
    lines.push(`      why: ${runnerUp.why}`);
  }
  if (role.alternatives.length > 0) lines.push(`    also: ${role.alternatives.map((setup) => `${setup.model} (${setup.score.toFixed(1)})`).join(', ')}`);
  return lines;
}

export function formatRecommendation(recommendation: Recommendation): string {
  const lines = [describeProject(recommendation)];
  if (recommendation.message) {
    lines.push('', recommendation.message);
    return lines.join('\n');
  }
  lines.push('', `Recommended setup (prefer ${recommendation.prefer}), per role:`);
  for (const role of recommendation.roles) lines.push(...roleLines(role));
  if (recommendation.worthTrying.length > 0) {
    lines.push('', 'Worth trying next (experiments: little evidence, but they might beat the pick):');
    for (const trial of recommendation.worthTrying) {
      lines.push(`- ${describeTrial(trial)}`);
    }
  }
  lines.push(
    '',
    'Scores run 0-100: the user\'s grades count most, then what happened to the work (reverts, follow-up fixes, undo, tests, ' +
      'bugs, tool failures), then the setup\'s grades of itself; each past record counts by how alike its project is, setups ' +
      'with little evidence are held near their role\'s average, and the 80% interval says how sure the score is.',
  );
  return lines.join('\n');
}
