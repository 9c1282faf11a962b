/**
 * Best-effort reading of what an AGENTS.md states about its project: `Language:`, `Framework:`
 * and `Scope:` (or `Domain:`) lines, in any common markdown dress (`- **Language**: TypeScript`,
 * `| Framework | Next.js |`), or a `## Language` heading followed by its first line of text.
 * Text that states none of them gives an empty result; nothing here throws.
 */

export interface AgentsMdFacts {
  language?: string;
  framework?: string;
  scope?: string;
}

type Field = keyof AgentsMdFacts;

const FIELD_NAMES: Readonly<Record<string, Field>> = {
  language: 'language',
  'primary language': 'language',
  framework: 'framework',
  scope: 'scope',
  domain: 'scope',
  'project scope': 'scope',
};
/** Longer values are prose, not a field value. */
const MAX_VALUE_LENGTH = 60;

const LABEL = '(language|primary language|framework|project scope|scope|domain)';
/** `Language: TypeScript`, `- **Framework:** Next.js`, `> Scope = CMS`. */
const LABELLED_LINE = new RegExp(`^[\\s>*+\\-]*[*_\`]*${LABEL}[*_\`]*\\s*[:=]\\s*(.+)$`, 'i');
/** `| Language | TypeScript |` */
const TABLE_ROW = new RegExp(`^\\s*\\|\\s*[*_\`]*${LABEL}[*_\`]*\\s*\\|\\s*([^|]+)\\|`, 'i');
/** `## Language` */
const HEADING = new RegExp(`^\\s{0,3}#{1,6}\\s+${LABEL}\\s*:?\\s*#*\\s*$`, 'i');

/** Strips markdown emphasis, code ticks, links and trailing punctuation from a stated value. */
function cleanValue(raw: string): string | undefined {
  const value = raw
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.;,]+$/, '')
    .trim();
  if (value === '' || value.length > MAX_VALUE_LENGTH) return undefined;
  return value;
}

function fieldOf(label: string | undefined): Field | undefined {
  return label ? FIELD_NAMES[label.toLowerCase()] : undefined;
}

/** The language, framework and scope an AGENTS.md states; the first statement of each wins. */
export function parseAgentsMd(text: string): AgentsMdFacts {
  const facts: AgentsMdFacts = {};
  const lines = text.split(/\r?\n/);
  let pendingHeading: Field | undefined;
  let inCodeFence = false;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) {
      inCodeFence = !inCodeFence;
      continue;
    }
    if (inCodeFence) continue;
    if (pendingHeading) {
      if (line.trim() === '') continue;
      const field = pendingHeading;
      pendingHeading = undefined;
      if (!/^\s*#/.test(line)) {
        const value = cleanValue(line.replace(/^[\s>*+-]+/, ''));
        if (value && facts[field] === undefined) facts[field] = value;
        continue;
      }
    }
    const heading = HEADING.exec(line);
    if (heading) {
      pendingHeading = fieldOf(heading[1]);
      continue;
    }
    const labelled = LABELLED_LINE.exec(line) ?? TABLE_ROW.exec(line);
    const field = fieldOf(labelled?.[1]);
    const value = labelled?.[2] ? cleanValue(labelled[2]) : undefined;
    if (field && value && facts[field] === undefined) facts[field] = value;
  }
  return facts;
}
