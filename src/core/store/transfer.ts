/**
 * Export and import of the whole history as NDJSON, so a team can pool the records of several
 * machines. One line per record: `{"kind","key","value"}`, kind being the sub-database. A header
 * line opens the file and an end line closes it with the record count, so a cut-off file is told
 * apart from a complete one.
 *
 * Import follows the rules of the legacy migration: additive and idempotent, one transaction, a
 * record written only when its key is absent, the run recorded in the migrations sub-database.
 * One exception: an agent's sheet the database already holds is pooled with the file's
 * (import-sheets.ts, rule in src/core/pooled-sheet.ts), so the sheet counts the work of both, as
 * `report` does, whichever database imports which. Every line is checked before anything is
 * written; a bad line names its number and writes nothing.
 */
import { OUTCOME_COUNTER_NAMES, WORK_COUNTER_NAMES } from '../../contract/counters.js';
import { createHash } from 'node:crypto';
import { importValueProblem } from '../integrity/import-checks.js';
import { ImportRoom } from './import-room.js';
import { ImportSheets } from './import-sheets.js';
import { mergeSessionRecord } from './import-usage.js';
import { boundedRegularFileText, checkBoundedRegularFile } from '../fs/read-bounded.js';
import { DEFAULT_RULES, isGrade } from '../rules.js';
import type { ScoringRules } from '../rules.js';
import { recountGradePairs } from './grade-pairs.js';
import { migrateGradeProvenance } from '../outcomes/legacy-grades.js';
import { provenanceOf } from '../outcomes/grades.js';
import { NO_CREDIT_REASONS } from '../types.js';
import type { AgentRecord, MigrationRecord, UsageRecord, UserActionProvenance } from '../types.js';
import { InputError } from '../validation.js';
import type { HistoryTable, MergeRecord, Store, Table } from './store.js';
import { tableNamed } from './tables.js';
import { GIT_SIGNAL_CACHE_PREFIX, gitSignalCacheKey, mergeGitSignalCaches } from '../../contract/git-signal-cache.js';
import type { GitSignalCache } from '../../contract/git-signal-cache.js';

/** The sub-databases that hold history. Indexes, migrations and meta are local and rebuilt. */
export const EXPORT_KINDS = ['agents', 'sessions', 'commits', 'communication', 'retrospectives', 'activities', 'projects', 'userGrades'] as const satisfies readonly HistoryTable[];
export type ExportKind = (typeof EXPORT_KINDS)[number];

export const EXPORT_FORMAT = 'agent-tracker-export';
/**
 * 2: grades carry provenance (communication `provenance`, `userGrades` records).
 * 3: the git-signal bookkeeping of each project travels too (`gitSignals` records), so an import never
 *    counts a revert or a follow-up fix the usage records already hold. A commit that earned nothing
 *    carries an optional `noCredit`; without it a commit earned, so files from before it read the same.
 */
export const EXPORT_VERSION = 3;
/** A project's git-signal cache (meta), exported beside the history it counted into. */
export const GIT_SIGNALS_KIND = 'gitSignals';
const GIT_SIGNALS_VERSION = 3;
/** Sorts after every project path: ends the range of the caches in meta. */
const GIT_SIGNAL_RANGE_END = '\uffff';
/** The first version whose grades carry provenance; older files' "user grades" were relayed by agents. */
const PROVENANCE_VERSION = 2;
const HEADER_KIND = 'header';
const END_KIND = 'end';
/** Records of one import in the migrations sub-database: `import:<sha256 of the file>#<time>`. */
const RECORD_PREFIX = 'import:';
const RECORD_TIME_SEPARATOR = '#';
/** Sorts after every ISO time, to end a range over one file's records. */
const RECORD_RANGE_END = '~';
/** How much of a bad line is quoted in an error. */
const QUOTED_LENGTH = 80;

export type ExportKey = string | string[];

/** One record of an export. */
export interface ExportRecord {
  kind: ExportKind;
  key: ExportKey;
  value: Record<string, unknown>;
}

/** One project's git-signal cache in an export. */
export interface GitSignalsRecord {
  kind: typeof GIT_SIGNALS_KIND;
  key: string;
  value: GitSignalCache;
}

/** What a file holds: history records and the git-signal caches. */
export interface ParsedExport {
  records: ExportRecord[];
  gitSignals: GitSignalsRecord[];
}

export interface ExportHeader {
  kind: typeof HEADER_KIND;
  format: typeof EXPORT_FORMAT;
  version: number;
  exportedAt: string;
}

export interface ExportSummary {
  /** Every line between the header and the end line: the history records of `byKind` and the `gitSignals` caches. */
  records: number;
  byKind: Record<ExportKind, number>;
  /** Projects whose git-signal bookkeeping travels with the records. */
  gitSignals: number;
}

function emptyCounts(): Record<ExportKind, number> {
  return { agents: 0, sessions: 0, commits: 0, communication: 0, retrospectives: 0, activities: 0, projects: 0, userGrades: 0 };
}

function tableOf(store: Store, kind: ExportKind): Table<unknown, ExportKey> {
  return tableNamed(store.tables, kind) as Table<unknown, ExportKey>;
}

/**
 * Writes every record as NDJSON lines through `write` (called with chunks of whole lines), in
 * sub-database and key order, so two exports of equal databases are equal apart from the header.
 */
export function exportRecords(store: Store, write: (chunk: string) => void, now: () => Date = () => new Date()): ExportSummary {
  const header: ExportHeader = { kind: HEADER_KIND, format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: now().toISOString() };
  write(`${JSON.stringify(header)}\n`);
  const summary: ExportSummary = { records: 0, byKind: emptyCounts(), gitSignals: 0 };
  const CHUNK_LINES = 512;
  let lines: string[] = [];
  for (const kind of EXPORT_KINDS) {
    for (const { key, value } of tableOf(store, kind).getRange()) {
      lines.push(JSON.stringify({ kind, key, value }));
      summary.records += 1;
      summary.byKind[kind] += 1;
      if (lines.length >= CHUNK_LINES) {
        write(`${lines.join('\n')}\n`);
        lines = [];
      }
    }
  }
  for (const { key, value } of store.tables.meta.getRange({ start: GIT_SIGNAL_CACHE_PREFIX, end: `${GIT_SIGNAL_CACHE_PREFIX}${GIT_SIGNAL_RANGE_END}` })) {
    lines.push(JSON.stringify({ kind: GIT_SIGNALS_KIND, key: String(key).slice(GIT_SIGNAL_CACHE_PREFIX.length), value }));
    summary.records += 1;
    summary.gitSignals += 1;
  }
  lines.push(JSON.stringify({ kind: END_KIND, records: summary.records }));
  write(`${lines.join('\n')}\n`);
  return summary;
}

// ---- validation ---------------------------------------------------------------------------------

type FieldType = 'string' | 'number' | 'boolean' | 'strings' | 'grade' | 'provenance' | 'noCredit';

interface KindRules {
  /** 0 for a string key, else the length of the array key. */
  keyLength: 0 | 2 | 3;
  required: Readonly<Record<string, FieldType>>;
  optional?: Readonly<Record<string, FieldType>>;
  /** The key parts the value determines (a journal key's last part is a free unique suffix). */
  keyFromValue: (value: Record<string, unknown>) => unknown[];
}

const RULES: Readonly<Record<ExportKind, KindRules>> = {
  agents: {
    keyLength: 0,
    required: { id: 'string', sp: 'number', xp: 'number', cs: 'number', commits: 'number', bugs: 'number', halted: 'boolean', createdAt: 'string', updatedAt: 'string' },
    // Set on a sheet an import pooled from two databases' (src/core/pooled-sheet.ts).
    optional: { pooledStanding: 'boolean' },
    keyFromValue: (v) => [v.id],
  },
  sessions: {
    keyLength: 3,
    required: {
      sessionId: 'string',
      agent: 'string',
      model: 'string',
      project: 'string',
      firstAt: 'string',
      lastAt: 'string',
      ...Object.fromEntries(WORK_COUNTER_NAMES.map((name) => [name, 'number' as const])),
    },
    optional: { parentSessionId: 'string', source: 'string', ...Object.fromEntries(OUTCOME_COUNTER_NAMES.map((name) => [name, 'number' as const])) },
    keyFromValue: (v) => [v.sessionId, v.agent, v.model],
  },
  commits: {
    keyLength: 2,
    required: {
      hash: 'string',
      project: 'string',
      agent: 'string',
      model: 'string',
      sessionId: 'string',
      message: 'string',
      files: 'strings',
      insertions: 'number',
      deletions: 'number',
      timestamp: 'string',
    },
    // Absent on commits that earned (and on every commit exported before the mark).
    optional: { noCredit: 'noCredit' },
    keyFromValue: (v) => [v.project, v.hash],
  },
  communication: {
    keyLength: 3,
    required: { agent: 'string', commit: 'string', project: 'string', source: 'string', grade: 'grade', timestamp: 'string' },
    optional: { provenance: 'provenance' },
    keyFromValue: (v) => [v.agent, v.timestamp],
  },
  retrospectives: {
    keyLength: 2,
    required: {
      commit: 'string',
      timestamp: 'string',
      task: 'string',
      agent_grade: 'grade',
      score_before: 'number',
      score_after: 'number',
      agent_note: 'string',
      user_note: 'string',
      agent: 'string',
      model: 'string',
      project: 'string',
    },
    optional: { sessionId: 'string', user_grade: 'grade', outcomeCounted: 'boolean' },
    keyFromValue: (v) => [v.agent, v.commit],
  },
  activities: {
    keyLength: 3,
    required: {
      timestamp: 'string',
      task: 'string',
      actions: 'string',
      outcome: 'string',
      decisions: 'string',
      agent: 'string',
      model: 'string',
      project: 'string',
      automatic: 'boolean',
    },
    optional: { sessionId: 'string', files: 'strings' },
    keyFromValue: (v) => [v.agent, v.timestamp],
  },
  projects: {
    keyLength: 0,
    required: {
      path: 'string',
      language: 'string',
      framework: 'string',
      scope: 'string',
      dependencies: 'strings',
      manifestType: 'string',
      classifiedAt: 'string',
      agentsmdHash: 'string',
    },
    keyFromValue: (v) => [v.path],
  },
  userGrades: {
    keyLength: 2,
    required: {
      commit: 'string',
      project: 'string',
      agent: 'string',
      model: 'string',
      sessionId: 'string',
      grade: 'grade',
      note: 'string',
      timestamp: 'string',
      provenance: 'provenance',
      via: 'string',
    },
    keyFromValue: (v) => [v.project, v.commit],
  },
};

function hasType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'strings':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'grade':
      return isGrade(value);
    case 'provenance':
      return value === 'user' || value === 'self' || value === 'agent-reported';
    case 'noCredit':
      return (NO_CREDIT_REASONS as readonly unknown[]).includes(value);
  }
}

const TYPE_NAMES: Readonly<Record<FieldType, string>> = {
  string: 'text',
  number: 'a finite number',
  boolean: 'true or false',
  strings: 'a list of texts',
  grade: 'a grade (-1, 1, 2 or 5)',
  provenance: 'user, self or agent-reported',
  noCredit: `one of ${NO_CREDIT_REASONS.join(', ')}`,
};

/**
 * A record of an export older than provenance, as this version stores it: a communication event's
 * "user" grade came through an agent tool, so it reads as agent-reported; its retrospectives stay as
 * they are (they read as agent-reported and are counted by the grade migration after the import).
 */
function upgradeRecord(record: ExportRecord, version: number): ExportRecord {
  if (version >= PROVENANCE_VERSION) return record;
  if (record.kind === 'communication') {
    const { provenance: _ignored, ...value } = record.value;
    const source = value.source === 'agent' ? 'agent' : 'user';
    return { ...record, value: { ...value, provenance: provenanceOf({ source }) } };
  }
  if (record.kind === 'retrospectives') {
    const { provenance: _ignored, outcomeCounted: _counted, ...value } = record.value;
    return { ...record, value };
  }
  return record;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function quote(line: string): string {
  return line.length > QUOTED_LENGTH ? `${line.slice(0, QUOTED_LENGTH)}…` : line;
}

/** The longest key (as JSON) an import may write: lmdb refuses keys past about 1,978 bytes, mid-transaction. */
const MAX_KEY_JSON_LENGTH = 1024;

/** Checks one record line; returns the problem, or undefined when it is fine. */
function recordProblem(parsed: Record<string, unknown>, scoring: ScoringRules): string | undefined {
  const kind = parsed.kind;
  if (typeof kind !== 'string' || !(EXPORT_KINDS as readonly string[]).includes(kind)) {
    return `unknown kind ${JSON.stringify(kind)}; expected one of ${EXPORT_KINDS.join(', ')}`;
  }
  const rules = RULES[kind as ExportKind];
  const { key, value } = parsed;
  if (rules.keyLength === 0 ? typeof key !== 'string' || key === '' : !Array.isArray(key) || key.length !== rules.keyLength || !key.every((part) => typeof part === 'string')) {
    return rules.keyLength === 0 ? `a ${kind} key must be non-empty text` : `a ${kind} key must be a list of ${rules.keyLength} texts`;
  }
  if (Buffer.byteLength(JSON.stringify(key)) > MAX_KEY_JSON_LENGTH) return `a ${kind} key must be at most ${MAX_KEY_JSON_LENGTH} bytes long`;
  if (!isPlainObject(value)) return `the value of a ${kind} record must be an object`;
  for (const [field, type] of Object.entries(rules.required)) {
    if (!hasType(value[field], type)) return `${kind} field "${field}" must be ${TYPE_NAMES[type]}, got ${JSON.stringify(value[field]) ?? 'nothing'}`;
  }
  for (const [field, type] of Object.entries(rules.optional ?? {})) {
    if (value[field] !== undefined && !hasType(value[field], type)) return `${kind} field "${field}" must be ${TYPE_NAMES[type]} when present`;
  }
  const ranges = importValueProblem(kind, value, [...Object.keys(rules.required), ...Object.keys(rules.optional ?? {})], scoring);
  if (ranges) return ranges;
  const keyParts = typeof key === 'string' ? [key] : (key as string[]);
  const expected = rules.keyFromValue(value);
  if (expected.some((part, i) => part !== keyParts[i])) {
    return `the key ${JSON.stringify(key)} does not match the record (expected it to start with ${JSON.stringify(expected)})`;
  }
  return undefined;
}

/** Checks a git-signals record; returns the problem, or undefined when it is fine. */
function gitSignalsProblem(parsed: Record<string, unknown>): string | undefined {
  const { key, value } = parsed;
  if (typeof key !== 'string' || key === '') return 'a gitSignals key must be a project path';
  if (!isPlainObject(value) || typeof value.head !== 'string' || !isPlainObject(value.counted)) return 'a gitSignals value must be {"head": text, "counted": {...}}';
  for (const fate of Object.values(value.counted)) {
    if (!isPlainObject(fate) || typeof fate.reverted !== 'boolean' || typeof fate.followUpFix !== 'boolean') {
      return 'each counted fate of a gitSignals record must be {"reverted": true|false, "followUpFix": true|false}';
    }
  }
  return undefined;
}

/**
 * Parses and checks an NDJSON export. Blank lines are ignored; the header and end lines are
 * optional, but a file that opens with a header must close with an end line whose count matches,
 * and a file with no line at all is refused.
 * @throws InputError naming the first bad line.
 */
export function parseExport(text: string, scoring: ScoringRules = DEFAULT_RULES): ExportRecord[] {
  return parseExportFile(text, scoring).records;
}

/** `parseExport` with the git-signal caches the file carries. */
export function parseExportFile(text: string, scoring: ScoringRules = DEFAULT_RULES): ParsedExport {
  const records: ExportRecord[] = [];
  const { gitSignals } = checkExport(text.split('\n'), scoring, (record) => records.push(record));
  return { records, gitSignals };
}

/** What checking a whole export found besides its history records. */
interface CheckedExport {
  gitSignals: GitSignalsRecord[];
  /** The file's export version (1 without a header). */
  version: number;
}

/**
 * Checks every line of an export, handing each history record (as this version stores it) to
 * `onRecord` as it passes, so a file read as it goes is never held whole.
 * @throws InputError naming the first bad line.
 */
function checkExport(lines: Iterable<string>, scoring: ScoringRules, onRecord: (record: ExportRecord) => void): CheckedExport {
  const gitSignals: GitSignalsRecord[] = [];
  let records = 0;
  let header = false;
  // A file without a header is read as the oldest version: it cannot make a grade the user's.
  let version = 1;
  let end: { line: number; records: unknown } | undefined;
  let number = 0;
  for (const raw of lines) {
    number += 1;
    const line = raw.trim();
    if (line === '') continue;
    const fail = (problem: string): never => {
      throw new InputError(`line ${number}: ${problem} (${quote(line)}). Nothing was imported.`);
    };
    if (end) fail('there is more after the end line');
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      fail(`not valid JSON: ${(error as Error).message}`);
    }
    if (!isPlainObject(parsed)) return fail('expected a JSON object with "kind", "key" and "value"');
    if (parsed.kind === HEADER_KIND) {
      if (records > 0 || header) fail('a header is allowed only as the first line');
      if (parsed.format !== EXPORT_FORMAT) fail(`not an agent-tracker export (format ${JSON.stringify(parsed.format)})`);
      if (typeof parsed.version !== 'number' || parsed.version > EXPORT_VERSION) {
        fail(`export version ${JSON.stringify(parsed.version)} is newer than this agent-tracker reads (${EXPORT_VERSION}); update agent-tracker`);
      }
      header = true;
      version = Number(parsed.version);
      continue;
    }
    if (parsed.kind === END_KIND) {
      end = { line: number, records: parsed.records };
      continue;
    }
    if (parsed.kind === GIT_SIGNALS_KIND) {
      if (version < GIT_SIGNALS_VERSION) fail(`gitSignals records need export version ${GIT_SIGNALS_VERSION} or later (this file is version ${version})`);
      const problem = gitSignalsProblem(parsed);
      if (problem) fail(problem);
      gitSignals.push({ kind: GIT_SIGNALS_KIND, key: parsed.key as string, value: parsed.value as GitSignalCache });
      continue;
    }
    if (parsed.kind === 'userGrades' && version < PROVENANCE_VERSION) fail(`userGrades records need export version ${PROVENANCE_VERSION} or later (this file is version ${version})`);
    const problem = recordProblem(parsed, scoring);
    if (problem) fail(problem);
    records += 1;
    onRecord(upgradeRecord({ kind: parsed.kind as ExportKind, key: parsed.key as ExportKey, value: parsed.value as Record<string, unknown> }, version));
  }
  const count = records + gitSignals.length;
  if (end && end.records !== count) {
    throw new InputError(`line ${end.line}: the end line counts ${JSON.stringify(end.records)} records but the file holds ${count}. Nothing was imported.`);
  }
  if (header && !end) throw new InputError(`the export ends without its end line after ${count} records: it was cut short. Nothing was imported.`);
  // Even an export of an empty database has its header and end lines: nothing at all is a failed copy or pipe.
  if (!header && !end && count === 0) throw new InputError('it holds no header and no record: it is empty (did the export or the pipe fail?). Nothing was imported.');
  return { gitSignals, version };
}

// ---- import -------------------------------------------------------------------------------------

export interface ImportResult {
  source: string;
  added: number;
  /** Records whose key the database already had. */
  skipped: number;
  addedByKind: Record<ExportKind, number>;
  /** Projects whose git-signal bookkeeping the file carried, merged into this database's. */
  gitSignals: number;
  /** When this exact file was first imported, if before. */
  importedBefore?: string;
  /** Agents whose sheet the database held and the import pooled with the file's (src/core/pooled-sheet.ts). */
  pooledSheets: string[];
}

export interface ImportRecord extends MigrationRecord {
  digest: string;
  addedByKind: Record<ExportKind, number>;
  /** How the user-only import came (src/cli/user-only.ts); absent on imports made before it was recorded. */
  userAction?: UserActionProvenance;
  /** The agents whose sheet this import pooled with the file's (absent when none, and on older imports). */
  pooledSheets?: string[];
}

/** The first recorded import of the file with this digest, if any. */
function firstImport(store: Store, digest: string): ImportRecord | undefined {
  const start = `${RECORD_PREFIX}${digest}${RECORD_TIME_SEPARATOR}`;
  for (const { value } of store.tables.migrations.getRange({ start, end: `${start}${RECORD_RANGE_END}`, limit: 1 })) {
    return value as ImportRecord;
  }
  return undefined;
}

/**
 * An export to import, read as many times as the import needs: once to check every line, once to
 * write. A file is read piece by piece each time (exportFileSource), never held whole.
 */
export interface ExportSource {
  /** Every line, in order; a text that ends in a newline ends with an empty line. */
  lines(): Iterable<string>;
  /** The sha256 (hex) of the text the last whole pass over `lines` read. */
  digest(): string;
}

/** An export already in memory. */
export function exportTextSource(text: string): ExportSource {
  let digest: string | undefined;
  return {
    lines: () => text.split('\n'),
    digest: () => (digest ??= createHash('sha256').update(text).digest('hex')),
  };
}

/**
 * An export file, read piece by piece at each pass (its digest is the one exportTextSource gives
 * for the same text). The file is checked now; a read error comes from the pass that meets it.
 * @throws UnreadableFileError or the open's error, as checkBoundedRegularFile.
 */
export function exportFileSource(file: string, maxBytes: number): ExportSource {
  checkBoundedRegularFile(file, maxBytes);
  let digest: string | undefined;
  return {
    *lines() {
      const hash = createHash('sha256');
      let rest = '';
      for (const piece of boundedRegularFileText(file, maxBytes)) {
        hash.update(piece);
        const parts = piece.split('\n');
        // A line longer than a piece is joined once it ends, not copied again at every piece.
        const last = parts.pop() ?? '';
        if (parts.length === 0) {
          rest += last;
          continue;
        }
        parts[0] = rest + (parts[0] as string);
        rest = last;
        yield* parts;
      }
      yield rest;
      digest = hash.digest('hex');
    },
    digest: () => {
      if (digest === undefined) throw new Error(`${file} was not read through yet`);
      return digest;
    },
  };
}

/** The file read differently the second time: the import's transaction is dropped. */
function changedWhileImported(): InputError {
  return new InputError('the file changed while it was imported. Nothing was imported; import it again when nothing writes to it.');
}

/**
 * The history records of lines already checked, as the store merges them, agent sheets last (they are
 * pooled with the work merged before them). The second pass does not check again: its text is the
 * checked one, which the caller confirms by the digest afterwards; what no longer parses or holds a
 * record's shape was changed meanwhile.
 */
function* mergeRecordsOf(lines: Iterable<string>, version: number): Generator<MergeRecord> {
  const sheets: MergeRecord[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw changedWhileImported();
    }
    if (!isPlainObject(parsed)) throw changedWhileImported();
    if (!(EXPORT_KINDS as readonly unknown[]).includes(parsed.kind)) continue;
    if (!isPlainObject(parsed.value) || (typeof parsed.key !== 'string' && !Array.isArray(parsed.key))) throw changedWhileImported();
    const record = upgradeRecord({ kind: parsed.kind as ExportKind, key: parsed.key as ExportKey, value: parsed.value }, version);
    if (record.kind === 'agents') sheets.push({ table: record.kind, key: record.key, value: record.value });
    else yield { table: record.kind, key: record.key, value: record.value };
  }
  yield* sheets;
}

/**
 * Imports an NDJSON export: checks every line first (agents' ranges against `scoring`, the importing database's rules), then writes the absent records in one
 * transaction (indexes updated in it) and records the run. Importing the same file again adds
 * nothing and records nothing.
 * @throws InputError for a bad file (nothing written).
 */
export function importExport(
  store: Store,
  text: string,
  source: string,
  now: () => Date = () => new Date(),
  provenance?: UserActionProvenance,
  scoring: ScoringRules = DEFAULT_RULES,
): ImportResult {
  return importExportFrom(store, exportTextSource(text), source, now, provenance, scoring);
}

/**
 * importExport from a source read twice: checked line by line first (only the git-signal caches
 * and two sums for the room check are kept), then read again inside the write's transaction. A
 * second reading that differs from the first (by its digest) drops the transaction.
 * @throws InputError for a bad file or one that changed between the readings (nothing written).
 */
export function importExportFrom(
  store: Store,
  file: ExportSource,
  source: string,
  now: () => Date = () => new Date(),
  provenance?: UserActionProvenance,
  scoring: ScoringRules = DEFAULT_RULES,
): ImportResult {
  const room = new ImportRoom(store);
  const sheets = new ImportSheets();
  const { gitSignals, version } = checkExport(file.lines(), scoring, (record) => {
    room.add(record);
    sheets.noteFileRecord({ table: record.kind, key: record.key, value: record.value });
  });
  const problem = room.problem();
  if (problem) throw new InputError(problem);
  const digest = file.digest();
  const previous = firstImport(store, digest);
  const result: ImportResult = {
    source,
    added: 0,
    skipped: 0,
    addedByKind: emptyCounts(),
    gitSignals: gitSignals.length,
    ...(previous ? { importedBefore: previous.at } : {}),
    pooledSheets: [],
  };
  const at = now().toISOString();
  store.write((t) => {
    // What the database holds of each agent the file has a sheet of, before the merge adds to it.
    sheets.countHeld(t);
    const merged = store.mergeAbsent(mergeRecordsOf(file.lines(), version), undefined, {
      observe: (record, added) => sheets.noteMerged(record, added, t),
      resolve: (record, stored) => {
        // A session live on one side and backfilled on the other: its work once, the live side's judgements.
        if (record.table === 'sessions') return mergeSessionRecord(stored as UsageRecord, record.value as UsageRecord);
        if (record.table !== 'agents') return undefined;
        const held = stored as AgentRecord;
        const pooled = sheets.pooled(held, record.value as AgentRecord, scoring);
        // An import that came the way an agent's could lifts no halt, as a suspect revive lifts none:
        // that sheet stays as it is (halted until the user revives the agent).
        if (pooled === undefined || (provenance?.suspect === true && held.halted && !pooled.halted)) return undefined;
        result.pooledSheets.push(pooled.id);
        return pooled;
      },
    });
    if (file.digest() !== digest) throw changedWhileImported();
    result.added = merged.added;
    result.skipped = merged.skipped;
    for (const kind of EXPORT_KINDS) result.addedByKind[kind] = merged.addedByTable[kind] ?? 0;
    // What the imported usage records already count of each project's reverts and follow-up fixes.
    for (const { key: project, value } of gitSignals) {
      const key = gitSignalCacheKey(project);
      t.meta.putSync(key, mergeGitSignalCaches(t.meta.get(key) as GitSignalCache | undefined, value));
    }
    // Commits graded by both are counted from the grades now held, not taken from the file.
    if (result.added > 0) recountGradePairs(t);
    if (result.added > 0 || result.pooledSheets.length > 0 || !previous) {
      const entry: ImportRecord = {
        source,
        at,
        added: result.added,
        skipped: result.skipped,
        digest,
        addedByKind: result.addedByKind,
        ...(provenance ? { userAction: provenance } : {}),
        ...(result.pooledSheets.length > 0 ? { pooledSheets: result.pooledSheets } : {}),
      };
      t.migrations.putSync(`${RECORD_PREFIX}${digest}${RECORD_TIME_SEPARATOR}${at}`, entry);
    }
  });
  // Old retrospectives (of this file or from before) count into their usage records once.
  if (result.added > 0) migrateGradeProvenance(store, { force: true });
  return result;
}
