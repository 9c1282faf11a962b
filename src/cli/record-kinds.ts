/**
 * The tables' records in words, for text output, where a table's name says otherwise (after a backfill
 * of 1,000 sessions, "3000 sessions" read as a contradiction). JSON output keeps the table names.
 */
const PER_SESSION = '(one per session × agent × model)';
const KIND_WORDS: Readonly<Record<string, string>> = { sessions: `usage records ${PER_SESSION}` };

/** Each table's records in the singular, for a count of one. */
const ONE_OF_KIND: Readonly<Record<string, string>> = {
  agents: 'agent',
  sessions: `usage record ${PER_SESSION}`,
  commits: 'commit',
  communication: 'communication',
  retrospectives: 'retrospective',
  activities: 'activity',
  projects: 'project',
  userGrades: 'userGrade',
};

/** "3000 usage records (one per session × agent × model)", "4000 commits", "1 agent". */
export function kindCount(kind: string, count: number): string {
  return `${count} ${(count === 1 ? ONE_OF_KIND[kind] : undefined) ?? KIND_WORDS[kind] ?? kind}`;
}

/** What a table's count means, after the count, in doctor's list of tables ("" when its name says it). */
export function kindNote(kind: string): string {
  const words = KIND_WORDS[kind];
  return words === undefined ? '' : ` ${words}`;
}
