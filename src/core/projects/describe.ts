/** Plain markdown about a project's profile, shared by the `init-project` tool and CLI command. */
import type { ProjectProfile } from '../types.js';
import type { InitStatus } from './init-project.js';
import type { SimilarProject } from './similarity.js';

/** Dependencies listed by name; the rest are counted. */
const LISTED_DEPENDENCIES = 20;
const HASH_PREFIX_LENGTH = 12;

const STATUS_TEXT: Readonly<Record<InitStatus, string>> = {
  created: 'registered',
  updated: 'updated (its AGENTS.md or manifests changed)',
  unchanged: 'already registered, unchanged',
};

/** The profile, what init did with it, and the known projects most like it. */
export function describeProfile(profile: ProjectProfile, status: InitStatus, similar: readonly SimilarProject[]): string {
  const deps = profile.dependencies;
  const listed = deps.slice(0, LISTED_DEPENDENCIES).join(', ');
  const more = deps.length > LISTED_DEPENDENCIES ? ` and ${deps.length - LISTED_DEPENDENCIES} more` : '';
  const lines = [
    `Project ${STATUS_TEXT[status]}: ${profile.path}`,
    `- Language: ${profile.language}`,
    `- Framework: ${profile.framework}`,
    `- Scope: ${profile.scope}`,
    `- Manifest: ${profile.manifestType}`,
    `- Dependencies (${deps.length}): ${deps.length > 0 ? `${listed}${more}` : 'none found'}`,
    `- AGENTS.md: ${profile.agentsmdHash ? `sha256 ${profile.agentsmdHash.slice(0, HASH_PREFIX_LENGTH)}` : 'none'}`,
    `- Classified at: ${profile.classifiedAt}`,
  ];
  if (similar.length === 0) {
    lines.push('', 'No similar projects are known yet.');
  } else {
    lines.push('', 'Similar known projects:');
    for (const { profile: other, score } of similar) {
      lines.push(`- ${other.path} (similarity ${score.toFixed(2)}): ${other.language} / ${other.framework} / ${other.scope}`);
    }
  }
  return lines.join('\n');
}
