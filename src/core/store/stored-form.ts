/**
 * How an entry (a usage record, a commit, a retrospective, a journal entry, a host event's totals)
 * is stored: without what can be derived.
 *
 * - **Field names.** A value is stored as an array of its fields' values in the fixed order below
 *   (FORMS), not as a msgpack map that repeats every field's name in every entry: about a
 *   quarter of an entry's bytes. Absent fields at the end are left off; one in the middle takes
 *   msgpack's 3-byte `undefined`. A value with a field its form does not know keeps the map form,
 *   so nothing is ever lost.
 * - **Times.** A time (`timestamp`) is stored as its milliseconds (9 bytes instead of 26) when
 *   they give the same ISO string back; any other string stays as it is (a time that is not a
 *   string keeps the map form).
 * - **Key fields.** A usage record is keyed [sessionId, agent, model], a commit [project, hash], a
 *   retrospective [agent, commit], a journal entry [agent, timestamp, id]: those fields are stored as
 *   `null` when they equal their key part (msgpack's one-byte nil) and read back from the key. A field
 *   that differs from its key keeps its value.
 * - **One layout (usage records).** A usage record is read into a copy of one object holding every
 *   field of its form, the absent ones `undefined`, whatever form it was stored in. Built field by
 *   field, an object of 30-odd fields becomes a V8 hash table, and reports read a dozen fields of
 *   every record; copies of one object share one fast layout (field reads about twice as fast).
 * - **A host event's totals** (the `events` table) are a bit mask of the counters there, then their
 *   values (`storedTotals` below).
 *
 * Records written before (a map, with or without the key fields: schema versions 2 and 3; usage
 * records before version 5, events before version 6) read as they were written. Every reader goes
 * through `restoredValue` (the store's tables, the salvage child), every writer through `storedValue`
 * (the store's tables): nothing else sees the stored form.
 */
import { isoMillis, isoText } from '../iso-time.js';
import type { ActivityEntry, CommitRecord, CounterName, RetrospectiveEntry, UsageRecord } from '../types.js';
import type { TableName } from './mutations.js';

/** The fields of `T` in stored order; a type error names any field of `T` left out. */
function fieldOrder<T>() {
  return <const F extends readonly (keyof T & string)[]>(
    ...fields: F & (Exclude<keyof T, F[number]> extends never ? unknown : { missing: Exclude<keyof T, F[number]> })
  ): F => fields;
}

/** How one table's values are stored. */
interface StoredForm {
  /** The fields in stored order (position in the array). */
  readonly fields: readonly string[];
  readonly position: ReadonlyMap<string, number>;
  /** Each field the key repeats, with the key part that holds it. */
  readonly keyFields: readonly (readonly [field: string, keyPart: number])[];
  /** The positions of the fields that hold a time as an ISO string. */
  readonly times: readonly number[];
  /** Every field, undefined: the object a record is read into, when the form gives all records one layout. */
  readonly layout?: Readonly<Record<string, undefined>>;
}

function storedForm<const F extends readonly string[]>(
  fields: F,
  keyFields: Partial<Record<F[number], number>>,
  times: readonly F[number][],
  { oneLayout = false } = {},
): StoredForm {
  return {
    fields,
    position: new Map(fields.map((field, at) => [field, at])),
    keyFields: Object.entries(keyFields) as [string, number][],
    times: times.map((field) => fields.indexOf(field)),
    // A spread: fromEntries builds a hash table, its copy a fast object that copies of it share.
    ...(oneLayout ? { layout: { ...Object.fromEntries(fields.map((field) => [field, undefined])) } } : {}),
  };
}

/** A usage record's fields that say what the session is, in stored order (positions 0–7). */
const USAGE_SESSION_FIELDS = ['sessionId', 'agent', 'model', 'project', 'firstAt', 'lastAt', 'source', 'parentSessionId'] as const;

/**
 * Every counter, in stored order: a usage record's positions from 8 on, and the bits of a host event's
 * totals (`storedTotals` below). Spelled out, not taken from the counter list in contract/counters.ts: a
 * position is for good, and a counter added in the middle of that list must not move the ones after it.
 */
const COUNTER_FIELDS = [
  'toolCalls',
  'toolFailures',
  'commands',
  'commits',
  'pushes',
  'bugs',
  'gradedCommits',
  'gradeSum',
  'csDelta',
  'messages',
  'tokensInput',
  'tokensOutput',
  'tokensReasoning',
  'tokensCacheRead',
  'tokensCacheWrite',
  'cost',
  'userGradedCommits',
  'userGradeSum',
  'selfGradedCommits',
  'selfGradeSum',
  'reportedGradedCommits',
  'reportedGradeSum',
  'turns',
  'undoneTurns',
  'testRuns',
  'testPasses',
  'testRecoveries',
  'revertedCommits',
  'followUpFixCommits',
  'trackerFileEdits',
  'turnsBugFix',
  'turnsFeature',
  'turnsRefactor',
  'turnsTests',
  'turnsDocs',
  'turnsConfig',
  'turnsOther',
  'pairedGradedCommits',
  'pairedGradeGapSum',
  'pairedGradeGapSquares',
] as const satisfies readonly CounterName[];

/** The table of host events' totals, and each counter's bit in their mask. */
const EVENTS: TableName = 'events';
const COUNTER_POSITION: ReadonlyMap<string, number> = new Map(COUNTER_FIELDS.map((name, at) => [name, at]));

/**
 * Per table, its values' fields in stored order (the types' declaration order; for usage records,
 * what the session is, then the counters), the fields its key repeats and the fields that hold a
 * time. A stored array means this order for good: a new field goes at the end, and no field ever
 * moves or leaves.
 */
const FORMS: ReadonlyMap<string, StoredForm> = new Map<TableName, StoredForm>([
  [
    'sessions',
    storedForm(
      fieldOrder<UsageRecord>()(...USAGE_SESSION_FIELDS, ...COUNTER_FIELDS),
      { sessionId: 0, agent: 1, model: 2 },
      ['firstAt', 'lastAt'],
      { oneLayout: true },
    ),
  ],
  [
    'commits',
    storedForm(
      fieldOrder<CommitRecord>()('hash', 'project', 'agent', 'model', 'sessionId', 'message', 'files', 'insertions', 'deletions', 'timestamp', 'noCredit'),
      { project: 0, hash: 1 },
      ['timestamp'],
    ),
  ],
  [
    'retrospectives',
    storedForm(
      fieldOrder<RetrospectiveEntry>()(
        'commit',
        'timestamp',
        'task',
        'agent_grade',
        'user_grade',
        'score_before',
        'score_after',
        'agent_note',
        'user_note',
        'agent',
        'model',
        'project',
        'sessionId',
        'provenance',
        'outcomeCounted',
      ),
      { agent: 0, commit: 1 },
      ['timestamp'],
    ),
  ],
  [
    'activities',
    storedForm(
      fieldOrder<ActivityEntry>()('timestamp', 'task', 'actions', 'outcome', 'decisions', 'agent', 'model', 'project', 'sessionId', 'files', 'automatic', 'userAction'),
      { agent: 0, timestamp: 1 },
      ['timestamp'],
    ),
  ],
]);

/** Whether `table` stores its values in a form of its own (so reads and writes go through this module). */
export function hasStoredForm(table: TableName | string): boolean {
  return table === EVENTS || FORMS.has(table);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a field's value is stored as null because key part `part` holds it. */
function heldByKey(value: unknown, key: readonly unknown[], part: number): boolean {
  return typeof value === 'string' && value === key[part];
}

/** The value to store under `key` (a new array or object: the caller's object is untouched). */
export function storedValue(table: TableName | string, key: unknown, value: unknown): unknown {
  if (table === EVENTS) return storedTotals(value);
  const form = FORMS.get(table);
  if (!form || !Array.isArray(key) || !isRecord(value)) return value;
  const stored: unknown[] = [];
  for (const field of Object.keys(value)) {
    const at = form.position.get(field);
    if (at === undefined) return mapForm(form, key, value);
    if (value[field] !== undefined) stored[at] = value[field];
  }
  for (const [field, part] of form.keyFields) {
    const at = form.position.get(field) as number;
    if (heldByKey(stored[at], key, part)) stored[at] = null;
  }
  for (const at of form.times) {
    const time = stored[at];
    if (typeof time === 'number') return mapForm(form, key, value); // read back as a string: keep it as it is
    const millis = typeof time === 'string' ? isoMillis(time) : undefined;
    if (millis !== undefined) stored[at] = millis;
  }
  return stored;
}

/**
 * A value with a field the form does not know: a map, with the fields the key repeats as null;
 * like the array, without the fields set to undefined.
 */
function mapForm(form: StoredForm, key: readonly unknown[], value: Record<string, unknown>): Record<string, unknown> {
  // fromEntries defines own properties: a field named __proto__ stays a field.
  const stored: Record<string, unknown> = Object.fromEntries(Object.entries(value).filter(([, fieldValue]) => fieldValue !== undefined));
  for (const [field, part] of form.keyFields) {
    if (heldByKey(stored[field], key, part)) stored[field] = null;
  }
  return stored;
}

/** The whole record as written: an array read into its fields, fields stored as null read from `key`. */
export function restoredValue(table: TableName | string, key: unknown, value: unknown): unknown {
  if (table === EVENTS) return restoredTotals(value);
  const form = FORMS.get(table);
  if (!form || !Array.isArray(key)) return value;
  let record: Record<string, unknown>;
  if (Array.isArray(value)) {
    record = form.layout ? { ...form.layout } : {};
    // Positions past the form's fields (a newer tracker's) are not read.
    for (let at = 0; at < value.length && at < form.fields.length; at++) {
      if (value[at] !== undefined) record[form.fields[at] as string] = value[at];
    }
    for (const at of form.times) {
      const field = form.fields[at] as string;
      if (typeof record[field] === 'number') record[field] = isoText(record[field]);
    }
  } else if (isRecord(value)) {
    // lmdb decodes a fresh object per read: filled in place, or copied into the form's layout
    // (a spread defines fields: a field named __proto__ stays a field).
    record = form.layout ? { ...form.layout, ...value } : value;
  } else {
    return value;
  }
  for (const [field, part] of form.keyFields) {
    if (record[field] === null && typeof key[part] === 'string') record[field] = key[part];
  }
  return record;
}

/**
 * A host event's totals (the `events` table): `[mask, ...values]`, where bit `i` of the mask (2^i, not a
 * 32-bit operation: there are more than 32 counters) says that the counter at position `i` of
 * COUNTER_FIELDS is there, and the values follow in that order. A message's seven counters take
 * 3 bytes of mask instead of the msgpack record definition that named them in every entry (about
 * 100 bytes); the table holds one entry per message, tool call and command, the most of any table.
 * Totals with a name that is no counter, or a value that is no number (undefined included: the
 * array would have no place for it), keep the map form.
 */
function storedTotals(value: unknown): unknown {
  if (!isRecord(value)) return value;
  let mask = 0;
  for (const name of Object.keys(value)) {
    const at = COUNTER_POSITION.get(name);
    if (at === undefined || typeof value[name] !== 'number') return value;
    mask += 2 ** at;
  }
  const stored: unknown[] = [mask];
  for (const name of COUNTER_FIELDS) {
    if (value[name] !== undefined) stored.push(value[name]);
  }
  return stored;
}

/** Totals as written: the array read back into counters (bits past the known counters, a newer tracker's, are not read); a map as it is. */
function restoredTotals(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const mask = value[0] as number;
  const totals: Record<string, unknown> = {};
  let next = 1;
  for (let at = 0; at < COUNTER_FIELDS.length; at++) {
    if (Math.floor(mask / 2 ** at) % 2 === 1) totals[COUNTER_FIELDS[at] as string] = value[next++];
  }
  return totals;
}
