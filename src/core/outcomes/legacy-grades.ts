/**
 * One-time, idempotent migration of grades recorded before provenance. Those retrospectives hold the
 * agent's grade and a "user grade" the agent relayed through its tool: the first counts as a self-grade,
 * the second as agent-reported (never as the user's). Each retrospective is marked once counted, in the
 * same transaction, so a rerun (or a later import of old records) counts each exactly once.
 */
import { isGrade } from '../rules.js';
import type { Store } from '../store/store.js';
import type { CounterDeltas, RetrospectiveEntry, UsageRecord } from '../types.js';

/** Meta key holding how many retrospectives the last run looked at; a run is skipped when nothing new came. */
const META_KEY = 'gradeProvenanceMigration';

/** The counters an old retrospective adds to the usage record it was counted on; undefined when it needs none. */
export function legacyGradeDeltas(entry: RetrospectiveEntry): CounterDeltas | undefined {
  if (entry.provenance !== undefined || entry.outcomeCounted === true) return undefined;
  const deltas: CounterDeltas = {};
  if (isGrade(entry.agent_grade)) {
    deltas.selfGradedCommits = 1;
    deltas.selfGradeSum = entry.agent_grade;
  }
  if (isGrade(entry.user_grade)) {
    deltas.reportedGradedCommits = 1;
    deltas.reportedGradeSum = entry.user_grade;
  }
  return Object.keys(deltas).length > 0 ? deltas : undefined;
}

export interface GradeMigrationResult {
  /** Retrospectives counted into usage records by this run. */
  counted: number;
}

/**
 * Counts every not-yet-counted old retrospective into the usage record of its session × agent × model
 * (when that record exists) and marks it. Skips the scan when the retrospective count did not change
 * since the last run (`force` scans anyway, e.g. after an import).
 */
export function migrateGradeProvenance(store: Store, options: { force?: boolean } = {}): GradeMigrationResult {
  const total = store.tables.retrospectives.getKeysCount();
  if (!options.force && Number(store.tables.meta.get(META_KEY) ?? -1) === total) return { counted: 0 };
  return store.write((t) => {
    let counted = 0;
    for (const { key, value } of t.retrospectives.getRange()) {
      const deltas = legacyGradeDeltas(value);
      if (!deltas) continue;
      const usageKey: [string, string, string] | undefined = value.sessionId ? [value.sessionId, value.agent, value.model] : undefined;
      const usage: UsageRecord | undefined = usageKey ? t.usage.get(usageKey) : undefined;
      if (usage && usageKey) {
        for (const [name, delta] of Object.entries(deltas) as [keyof CounterDeltas, number][]) usage[name] = (usage[name] ?? 0) + delta;
        t.usage.putSync(usageKey, usage);
      }
      // Marked in place (each read decodes a fresh object): on Node 20 a spread plus a new field is slow.
      value.outcomeCounted = true;
      t.retrospectives.putSync(key, value);
      counted += 1;
    }
    t.meta.putSync(META_KEY, total);
    return { counted };
  });
}
