/** The recommendation as short markdown, for the terminal and for the model (the agent tool). */
import { UNKNOWN } from '../types.js';
import type { Recommendation } from './recommend.js';

/** How many setups the text lists; `--json` has them all. */
const LISTED_SETUPS = 5;

function describeProject(recommendation: Recommendation): string {
  const { project } = recommendation;
  const facts = [`language ${project.language}`, `framework ${project.framework}`, `scope ${project.scope}`];
  if (project.dependencies.length > 0) facts.push(`${project.dependencies.length} dependencies`);
  const unclassified = [project.language, project.framework, project.scope].every((fact) => fact === UNKNOWN)
    ? ' (not classified: add a manifest, or state Language, Framework and Scope in its AGENTS.md)'
    : '';
  return `Project ${project.path}: ${facts.join(', ')}${unclassified}.`;
}

export function formatRecommendation(recommendation: Recommendation): string {
  const lines = [describeProject(recommendation)];
  if (recommendation.message) {
    lines.push('', recommendation.message);
    return lines.join('\n');
  }
  const [best] = recommendation.recommendations;
  if (best) lines.push('', `Use ${best.agent} with ${best.model} (score ${best.score.toFixed(1)} of 100, ${best.n} commits).`);
  lines.push('', 'Setups, best first:');
  recommendation.recommendations.slice(0, LISTED_SETUPS).forEach((setup, i) => {
    lines.push(`${i + 1}. ${setup.agent} · ${setup.model} — score ${setup.score.toFixed(1)}, n=${setup.n}: ${setup.why}`);
  });
  const more = recommendation.recommendations.length - LISTED_SETUPS;
  if (more > 0) lines.push(`(${more} more; --json lists them all)`);
  lines.push(
    '',
    'Scores run 0-100 from grades, bugs per commit, tool failure rate and cost per commit; each past record counts by how alike ' +
      'its project is, and setups with few commits are held near the overall mean.',
  );
  return lines.join('\n');
}
