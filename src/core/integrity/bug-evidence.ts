/**
 * A penalty needs evidence like a credit does. An agent may report a bug of its own at its word;
 * a report against ANOTHER agent costs that agent SP only when it names a commit that agent made in
 * the project. Anything else is kept as an unverified report that costs nothing: one session must not
 * be able to halt an agent (OpenCode's built-in `plan`, say) in every project by naming it.
 */
import type { CommitRecord } from '../types.js';

export type BugReportVerdict =
  | { verified: true; evidence: 'own work' | 'commit' }
  | { verified: false; reason: string };

export interface BugReportFacts {
  /** The agent filing the report (the caller of the tool). */
  reporter: string;
  /** The agent the bug is charged to. */
  accused: string;
  /** The commit hash the report named, if any. */
  named?: string;
  /** The tracked commit of the project that `named` resolves to, if any. */
  commit?: Pick<CommitRecord, 'agent' | 'hash'>;
}

export function judgeBugReport(facts: BugReportFacts): BugReportVerdict {
  if (facts.reporter === facts.accused) return { verified: true, evidence: 'own work' };
  if (facts.named === undefined) {
    return { verified: false, reason: `a report against another agent must name a commit ${facts.accused} made in this project` };
  }
  if (!facts.commit) return { verified: false, reason: `no tracked commit of this project starts with "${facts.named}"` };
  if (facts.commit.agent !== facts.accused) {
    return { verified: false, reason: `commit ${facts.commit.hash.slice(0, 12)} was made by ${facts.commit.agent}, not ${facts.accused}` };
  }
  return { verified: true, evidence: 'commit' };
}
