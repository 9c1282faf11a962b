/**
 * Migration of a legacy per-project database (one root database, keys `agent:<id>`,
 * `commit:<project>:<hash>`, `communication:<agent>:<commit>:<time>`, snake_case values) into the
 * central store. Additive and idempotent: a record is written only when its key is absent, in one
 * transaction, recorded in the migrations sub-database; the legacy file is never changed or deleted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isGrade } from '../rules.js';
import type { AgentRecord, CommitRecord, GradeEvent, MigrationRecord } from '../types.js';
import type { CommitKey, JournalKey } from './mutations.js';
import { readLegacyEntries } from './store.js';
import type { LegacyEntry, Store } from './store.js';

/** Where the old plugin kept its database, relative to the folder it ran in (a literal `~`). */
export const LEGACY_RELATIVE_PATH = path.join('~', '.config', 'opencode', 'agent-tracker.lmdb');
/** Records of one legacy file in the migrations sub-database: `legacy:<source>#<time>`. */
const RECORD_PREFIX = 'legacy:';
const RECORD_TIME_SEPARATOR = '#';
/** Sorts after every ISO time, to end a range over one source's records. */
const RECORD_RANGE_END = '~';
const LEGACY_SESSION = 'legacy';
const UNKNOWN_MODEL = 'unknown';
/** Legacy communication events carry no author; the old plugin recorded the user's grading. */
const LEGACY_GRADE_SOURCE: GradeEvent['source'] = 'user';
const MAX_ID_LENGTH = 200;

export type LegacyKind = 'agents' | 'commits' | 'communication';

/** A legacy record translated into the central layout. */
export type MappedRecord =
  | { kind: 'agents'; key: string; value: AgentRecord }
  | { kind: 'commits'; key: CommitKey; value: CommitRecord }
  | { kind: 'communication'; key: JournalKey; value: GradeEvent & { reason?: string } };

/** What a migration found and did. */
export interface MigrationResult {
  source: string;
  /** False when there is no legacy database at `source`. */
  found: boolean;
  /** True when the file was already migrated in this exact state and was not read again. */
  upToDate: boolean;
  added: number;
  /** Records whose key the central database already had. */
  skipped: number;
  /** Entries that were not legacy records (unknown key or unreadable value). */
  unrecognized: number;
  addedByKind: Record<LegacyKind, number>;
}

/** The stored record of one migration run. */
export interface LegacyMigrationRecord extends MigrationRecord {
  /** Size and modification time of the legacy file when it was read. */
  fingerprint: string;
  unrecognized: number;
  addedByKind: Record<LegacyKind, number>;
}

type Fields = Record<string, unknown>;

function fieldsOf(value: unknown): Fields | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;
}

function numberField(fields: Fields, name: string, fallback: number): number {
  const value = fields[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function idField(fields: Fields, name: string, fallback = ''): string {
  const value = fields[name];
  const text = typeof value === 'string' ? value.trim() : fallback;
  return text.length > 0 && text.length <= MAX_ID_LENGTH ? text : '';
}

/** An ISO time from an ISO string or epoch milliseconds (number or digits); `fallback` when neither. */
function isoTime(value: unknown, fallback: string): string {
  let date: Date | undefined;
  if (typeof value === 'number') date = new Date(value);
  else if (typeof value === 'string' && value.trim() !== '') date = /^\d+$/.test(value.trim()) ? new Date(Number(value)) : new Date(value);
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : fallback;
}

function mapAgent(key: string, fields: Fields, epoch: string): Extract<MappedRecord, { kind: 'agents' }> | undefined {
  const id = idField(fields, 'id', key.slice('agent:'.length));
  if (!id) return undefined;
  const createdAt = isoTime(fields.created_at, epoch);
  return {
    kind: 'agents',
    key: id,
    value: {
      id,
      sp: numberField(fields, 'skill_points', 1),
      xp: numberField(fields, 'experience_points', 0),
      cs: numberField(fields, 'communication_score', 0),
      commits: numberField(fields, 'total_commits', 0),
      bugs: numberField(fields, 'total_bugs', 0),
      halted: fields.active === false,
      createdAt,
      updatedAt: isoTime(fields.updated_at, createdAt),
    },
  };
}

function mapCommit(key: string, fields: Fields, models: ReadonlyMap<string, string>, epoch: string): MappedRecord | undefined {
  const fromKey = /^commit:(.*):([0-9a-fA-F]{7,64})$/.exec(key);
  const hash = idField(fields, 'commit_hash', fromKey?.[2] ?? '').toLowerCase();
  const project = idField(fields, 'project_path', fromKey?.[1] ?? '');
  const agent = idField(fields, 'agent_id');
  if (!/^[0-9a-f]{7,64}$/.test(hash) || !project || !agent) return undefined;
  const message = typeof fields.task_description === 'string' ? fields.task_description : '';
  return {
    kind: 'commits',
    key: [project, hash],
    value: {
      hash,
      project,
      agent,
      model: models.get(agent) ?? UNKNOWN_MODEL,
      sessionId: LEGACY_SESSION,
      message,
      files: [],
      insertions: 0,
      deletions: 0,
      timestamp: isoTime(fields.timestamp, epoch),
    },
  };
}

function mapCommunication(key: string, fields: Fields, epoch: string): MappedRecord | undefined {
  const fromKey = /^communication:(.+?):([0-9a-fA-F]{7,64}):(.+)$/.exec(key);
  const agent = idField(fields, 'agent_id', fromKey?.[1] ?? '');
  const commit = idField(fields, 'commit_hash', fromKey?.[2] ?? '').toLowerCase();
  const grade = fields.grade;
  if (!agent || !commit || !isGrade(grade)) return undefined;
  const timestamp = isoTime(fields.timestamp, isoTime(fromKey?.[3], epoch));
  const reason = typeof fields.reason === 'string' && fields.reason.trim() !== '' ? fields.reason : undefined;
  return {
    kind: 'communication',
    // A deterministic key: migrating the same event twice finds it present.
    key: [agent, timestamp, `${LEGACY_SESSION}:${commit}`],
    value: {
      agent,
      commit,
      project: idField(fields, 'project_path'),
      source: LEGACY_GRADE_SOURCE,
      grade,
      timestamp,
      ...(reason ? { reason } : {}),
    },
  };
}

/**
 * Translates legacy entries into central records. Agents are read first so a commit can carry its
 * agent's model. Entries that are not legacy records are counted, not guessed at.
 */
export function mapLegacyEntries(entries: Iterable<LegacyEntry>, epoch = new Date(0).toISOString()): { records: MappedRecord[]; unrecognized: number } {
  const agents: [string, Fields][] = [];
  const others: [string, Fields][] = [];
  let unrecognized = 0;
  for (const { key, value } of entries) {
    const fields = fieldsOf(value);
    if (!fields) unrecognized += 1;
    else if (key.startsWith('agent:')) agents.push([key, fields]);
    else if (key.startsWith('commit:') || key.startsWith('communication:')) others.push([key, fields]);
    else unrecognized += 1;
  }
  const models = new Map<string, string>();
  const records: MappedRecord[] = [];
  for (const [key, fields] of agents) {
    const record = mapAgent(key, fields, epoch);
    if (!record) {
      unrecognized += 1;
      continue;
    }
    records.push(record);
    const model = idField(fields, 'model');
    if (model) models.set(record.key, model);
  }
  for (const [key, fields] of others) {
    const record = key.startsWith('commit:') ? mapCommit(key, fields, models, epoch) : mapCommunication(key, fields, epoch);
    if (record) records.push(record);
    else unrecognized += 1;
  }
  return { records, unrecognized };
}

/** Where the legacy database of a folder would be. */
export function legacyPathIn(directory: string): string {
  return path.join(directory, LEGACY_RELATIVE_PATH);
}

function fingerprintOf(file: string): string {
  const stat = fs.statSync(file);
  return `${stat.size}:${Math.floor(stat.mtimeMs)}`;
}

/** The latest stored migration of `source`, if any. */
export function lastMigration(store: Store, source: string): LegacyMigrationRecord | undefined {
  let last: LegacyMigrationRecord | undefined;
  const start = `${RECORD_PREFIX}${source}${RECORD_TIME_SEPARATOR}`;
  for (const { value } of store.tables.migrations.getRange({ start, end: `${start}${RECORD_RANGE_END}` })) {
    last = value as LegacyMigrationRecord;
  }
  return last;
}

function emptyCounts(): Record<LegacyKind, number> {
  return { agents: 0, commits: 0, communication: 0 };
}

export interface MigrateOptions {
  /** Skip reading when the file is unchanged since its last recorded migration (plugin start). */
  skipIfUnchanged?: boolean;
  now?: () => Date;
}

/**
 * Merges the legacy database at `source` into `store`: only absent keys are written, all in one
 * transaction, and the run is recorded when it added something or saw the file in a new state.
 * @throws when the legacy file cannot be read or the central database refuses the write; the
 *   central database is then unchanged.
 */
export function migrateLegacy(store: Store, source: string, options: MigrateOptions = {}): MigrationResult {
  const absolute = path.resolve(source);
  const result: MigrationResult = {
    source: absolute,
    found: false,
    upToDate: false,
    added: 0,
    skipped: 0,
    unrecognized: 0,
    addedByKind: emptyCounts(),
  };
  if (!fs.existsSync(absolute) || !fs.statSync(absolute).isFile()) return result;
  if (path.resolve(store.path) === absolute) throw new Error(`the legacy database ${absolute} is the central database itself`);
  result.found = true;
  const fingerprint = fingerprintOf(absolute);
  const previous = lastMigration(store, absolute);
  if (options.skipIfUnchanged && previous?.fingerprint === fingerprint) {
    result.upToDate = true;
    return result;
  }

  const { records, unrecognized } = mapLegacyEntries(readLegacyEntries(absolute));
  result.unrecognized = unrecognized;
  const at = (options.now?.() ?? new Date()).toISOString();
  store.write((t) => {
    const merged = store.mergeAbsent(records.map((record) => ({ table: record.kind, key: record.key, value: record.value })));
    result.added = merged.added;
    result.skipped = merged.skipped;
    for (const kind of Object.keys(result.addedByKind) as LegacyKind[]) result.addedByKind[kind] = merged.addedByTable[kind] ?? 0;
    if (result.added > 0 || previous?.fingerprint !== fingerprint) {
      const entry: LegacyMigrationRecord = {
        source: absolute,
        at,
        added: result.added,
        skipped: result.skipped,
        unrecognized,
        addedByKind: result.addedByKind,
        fingerprint,
      };
      t.migrations.putSync(`${RECORD_PREFIX}${absolute}${RECORD_TIME_SEPARATOR}${at}`, entry);
    }
  });
  return result;
}
