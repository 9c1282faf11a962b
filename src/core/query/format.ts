/** Renders prior art as markdown sections an agent can paste into a brainstorm or plan. */
import { GRADE_LABELS } from '../types.js';
import type { PatternMatch, PriorArtResult } from './types.js';

/** Longest task and notes shown per entry; the full text stays in the database. */
const MAX_TASK_CHARS = 200;
const MAX_NOTES_CHARS = 400;
const NONE_FOUND = '_None found._';

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function gradeText(match: PatternMatch): string {
  return match.grade === undefined ? `ungraded ${match.source}` : `${GRADE_LABELS[match.grade]} (${match.grade}) ${match.source}`;
}

function entry(match: PatternMatch): string {
  const day = match.timestamp.slice(0, 10);
  const lines = [
    `- **${clip(match.task, MAX_TASK_CHARS)}** — ${gradeText(match)}; agent \`${match.agentId}\`, scope \`${match.scope}\`, ` +
      `${day}, relevance ${match.relevanceScore.toFixed(2)}`,
  ];
  if (match.notes) lines.push(`  ${clip(match.notes, MAX_NOTES_CHARS)}`);
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
  const sections = [section('Prior Art: Positive Patterns', result.positivePatterns)];
  if (result.crossScopePatterns.length > 0) sections.push(section('Prior Art: Cross-Scope Patterns', result.crossScopePatterns));
  sections.push(section('Prior Art: Mistakes to Avoid', result.mistakes));
  return sections.join('\n\n');
}
