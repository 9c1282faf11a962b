/**
 * The user-only records stored as suspect (made the way an agent could: see user-only.ts and
 * provenance.ts), for `report`, `status`, `doctor` and `recommend` to show apart and for `review`
 * to settle. Read from the user-only journal entries (`ActivityEntry.userAction`), the import
 * records (`ImportRecord.userAction`) and the record chain's entries written from inside an agent
 * session (record-chain.ts). Only the suspect ones are read, through their index (suspect-index.ts;
 * a database from before it is scanned whole). The records themselves are never changed: the user's
 * review is a write-once record of its own (`review:ID` in the meta table), so the original stays evidence.
 */
import { createHash } from 'node:crypto';
import type { StoreKey } from '../store/tables.js';
import { chainEntries, REVIEW_KEY_PREFIX } from './record-chain.js';
import type { ChainEntry } from './record-chain.js';
import { indexedSuspects } from './suspect-index.js';
import type { StoreAccess } from '../store/access.js';
import type { UserActionProvenance } from '../types.js';
import type { ReviewDecision, SuspectReview, SuspectUserAction } from '../../contract/answers.js';
export type { ReviewDecision, SuspectReview, SuspectUserAction } from '../../contract/answers.js';

/** Hex digits of a suspect record's id: short to type, and unique among a user's few suspect records. */
export const SUSPECT_ID_LENGTH = 8;

export const REVIEW_DECISIONS: readonly ReviewDecision[] = ['confirmed', 'dropped'];

/** The journal summary of a suspect revive that was held (the halt stays until the user confirms it). */
export function heldReviveSummary(agent: string, via: UserActionProvenance['via']): string {
  return `Revive of ${agent} held for review (${via})`;
}

/** The id of a record from its table and key: the same on every read. */
export function suspectId(table: string, key: StoreKey): string {
  return createHash('sha256').update(JSON.stringify([table, key])).digest('hex').slice(0, SUSPECT_ID_LENGTH);
}

function reviewOf(store: StoreAccess, id: string): SuspectReview | undefined {
  const stored = store.tables.meta.get(`${REVIEW_KEY_PREFIX}${id}`) as Partial<SuspectReview> | undefined;
  if (!stored || !REVIEW_DECISIONS.includes(stored.decision as ReviewDecision)) return undefined;
  return stored as SuspectReview;
}

/**
 * The writes through the tracker's own modules by a process inside an agent session (record-chain.ts),
 * one per process: those of a process that also recorded its user-only action are listed by that
 * record already (the CLI's gate), the rest went around the CLI.
 */
function suspectWrites(entries: Iterable<ChainEntry>): Omit<SuspectUserAction, 'review'>[] {
  const byWriter = new Map<number, { entry: ChainEntry; agents: Set<string>; recordedAction: boolean }>();
  for (const entry of entries) {
    if (!entry.writer.suspect) continue;
    const seen = byWriter.get(entry.writer.pid) ?? { entry, agents: new Set<string>(), recordedAction: false };
    for (const [table, key] of entry.records) {
      if (table === 'activities') seen.recordedAction = true;
      if (table === 'agents') seen.agents.add(JSON.parse(key) as string);
    }
    byWriter.set(entry.writer.pid, seen);
  }
  return [...byWriter.values()]
    .filter((writer) => !writer.recordedAction)
    .map(({ entry, agents }) => ({
      id: suspectId('chain', entry.seq),
      action: 'direct write',
      at: entry.at,
      ...(agents.size > 0 ? { agent: [...agents].join(',') } : {}),
      ...(entry.writer.signs ? { signs: entry.writer.signs } : {}),
    }));
}

/**
 * Every suspect user-only record, oldest first. Reviewed ones are left out (they no longer warn)
 * unless `includeReviewed`.
 */
export function suspectUserActions(store: StoreAccess, options: { includeReviewed?: boolean } = {}): SuspectUserAction[] {
  const found: SuspectUserAction[] = [];
  const add = (entry: Omit<SuspectUserAction, 'review'>) => {
    const review = reviewOf(store, entry.id);
    if (review && !options.includeReviewed) return;
    found.push(review ? { ...entry, review } : entry);
  };
  const indexed = indexedSuspects(store.tables);
  for (const { key, value } of indexed?.activities ?? store.tables.activities.getRange({})) {
    const provenance = value.userAction;
    if (!provenance?.suspect) continue;
    const held = provenance.action === 'revive' && value.task === heldReviveSummary(value.agent, provenance.via);
    add({
      id: suspectId('activities', key),
      action: provenance.action,
      at: value.timestamp,
      agent: value.agent,
      project: value.project,
      ...(held ? { heldRevive: true } : {}),
      ...(provenance.signs ? { signs: provenance.signs } : {}),
    });
  }
  for (const { key, value } of store.tables.migrations.getRange({ start: 'import:', end: 'import;' })) {
    const provenance = (value as { userAction?: UserActionProvenance }).userAction;
    if (provenance?.suspect) add({ id: suspectId('migrations', key), action: provenance.action, at: value.at });
  }
  for (const write of suspectWrites(indexed?.chain ?? chainEntries(store.tables))) add(write);
  return found.sort((a, b) => a.at.localeCompare(b.at));
}

/**
 * Records the user's decision on one suspect record, once: a second review of the same record is
 * refused (the first decision stands). Returns the record reviewed.
 * @throws Error naming the id when no unreviewed suspect record has it.
 */
export function reviewSuspectAction(store: StoreAccess, id: string, review: SuspectReview): SuspectUserAction {
  const wanted = id.trim().toLowerCase();
  const target = suspectUserActions(store, { includeReviewed: true }).find((action) => action.id === wanted);
  if (!target) throw new Error(`no suspect record has the id "${id}"; "agent-tracker review" lists them`);
  if (target.review) throw new Error(`record ${target.id} was already ${target.review.decision} at ${target.review.at}; a review is kept once`);
  // Through the door, which chains the review like every user-only record.
  store.putRecords([{ table: 'meta', key: `${REVIEW_KEY_PREFIX}${target.id}`, value: review }]);
  return { ...target, review };
}

/** One line per suspect action for the terminal, or '' when there are none. */
export function formatSuspectUserActions(actions: readonly SuspectUserAction[]): string {
  if (actions.length === 0) return '';
  const lines = actions.map((a) => `  ${a.id}  ${a.at.slice(0, 19)}  ${a.action}${a.agent && a.agent !== 'unknown' ? ` ${a.agent}` : ''}${a.signs && a.signs.length > 0 ? `: ${a.signs.join('; ')}` : ''}`);
  return [
    `Suspect user-only actions (${actions.length}): made without a terminal while an agent session of the project was running, or by a process an agent session started.`,
    'Check you made them yourself, then settle each with "agent-tracker review" (confirmed ones stop warning):',
    ...lines,
  ].join('\n');
}
