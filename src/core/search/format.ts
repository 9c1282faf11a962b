/**
 * Renders prior art as markdown sections an agent can paste into a brainstorm or plan. Recorded
 * text is quoted data under a preface (src/core/search/quote.ts), never markup the model reads as
 * instructions; another project appears by name, not by path.
 */
import { GRADE_LABELS } from '../types.js';
import { projectName, quoteNote, RECORDED_NOTES_PREFACE } from './quote.js';
import type { PatternMatch, PriorArtResult } from './types.js';

/** Longest task and notes shown per entry; the full text stays in the database. */
const MAX_TASK_CHARS = 200;
const MAX_NOTES_CHARS = 300;
const NONE_FOUND = '_None found._';

/**
 * A retrospective's grade is labelled self-graded unless the user is known to have given it:
 * an agent's opinion of its own work is not evidence that it worked. An activity judged by a bug
 * report or by its session's commits says so: it was not graded itself.
 */
function gradeText(match: PatternMatch): string {
  if (match.judgedBy === 'reported-bug') return `reported bug (${match.source})`;
  if (match.judgedBy === 'reverted') {
    if (match.source === 'commit') return 'commit reverted later (ungraded)';
    return match.source === 'retrospective' ? 'retrospective of a commit reverted later (its self-grade outweighed)' : `${match.source} of a session with a commit reverted later (ungraded)`;
  }
  if (match.grade === undefined) return `ungraded ${match.source}`;
  const grade = `${GRADE_LABELS[match.grade]} (${match.grade})`;
  if (match.judgedBy === 'session-commits') {
    return match.grade === -1
      ? `${match.source} of a session with a commit the user graded ${grade}`
      : `${match.source} of a session whose commits the user graded ${grade}${match.grade === 2 ? ' or better' : ''}`;
  }
  const by = match.gradedBy === 'user' ? 'user-graded' : match.gradedBy === 'agent-reported' ? 'agent-relayed' : 'self-graded';
  return `${by} ${grade} ${match.source}`;
}

/** A scope falls back to a project's path when it has no classification: show the name only. */
function scopeName(scope: string): string {
  return scope.startsWith('/') || /^[A-Za-z]:[\\/]/.test(scope) ? projectName(scope) : quoteNote(scope, 64);
}

function entry(match: PatternMatch): string {
  const day = match.timestamp.slice(0, 10);
  const project = match.projectPath ? projectName(match.projectPath) : undefined;
  const scope = scopeName(match.scope);
  // A scope that fell back to the project says nothing the project's name does not.
  const where = [scope === project ? '' : `, scope ${scope}`, project === undefined ? '' : `, project ${project}`].join('');
  const lines = [
    `- ${gradeText(match)}; agent ${quoteNote(match.agentId, 64)}${where}, ${day}, relevance ${match.relevanceScore.toFixed(2)}`,
    `  > task: ${quoteNote(match.task, MAX_TASK_CHARS)}`,
  ];
  if (match.notes) lines.push(`  > notes: ${quoteNote(match.notes, MAX_NOTES_CHARS)}`);
  return lines.join('\n');
}

function section(title: string, matches: readonly PatternMatch[]): string {
  return [`### ${title}`, '', matches.length > 0 ? matches.map(entry).join('\n') : NONE_FOUND].join('\n');
}

/**
 * Three markdown sections: positive patterns from the query's scope, cross-scope patterns (only
 * when there are any) and mistakes to avoid.
 */
export function formatPriorArt(result: PriorArtResult): string {
  const sections = [RECORDED_NOTES_PREFACE, section('Prior Art: Positive Patterns', result.positivePatterns)];
  if (result.crossScopePatterns.length > 0) sections.push(section('Prior Art: Cross-Scope Patterns', result.crossScopePatterns));
  sections.push(section('Prior Art: Mistakes to Avoid', result.mistakes));
  return sections.join('\n\n');
}
