/**
 * Fields an entry's key already holds are not stored twice. A commit is keyed [project, hash], a
 * retrospective [agent, commit], a journal entry [agent, timestamp, id]: those fields of the value
 * are written as `null` when they equal their key part (msgpack's one-byte nil; the field stays in
 * place, so the record keeps its field order and lmdb's shared record structure) and are read back
 * from the key. A value whose field differs from its key keeps it; a record written before this
 * layout (schema version 3) holds the whole field and reads as it was written.
 *
 * Every reader goes through `restoredValue` (the store's tables, the salvage child), every writer
 * through `storedValue` (the store's tables): nothing else sees the placeholders.
 */
import type { TableName } from './mutations.js';

/** Per table: each value field its key repeats, with the key part that holds it. */
const KEY_FIELDS: Partial<Record<TableName, readonly (readonly [field: string, keyPart: number])[]>> = {
  commits: [
    ['project', 0],
    ['hash', 1],
  ],
  retrospectives: [
    ['agent', 0],
    ['commit', 1],
  ],
  activities: [
    ['agent', 0],
    ['timestamp', 1],
  ],
};

/** Whether `table` stores some of its values' fields in the key only. */
export function hasKeyFields(table: TableName | string): boolean {
  return table in KEY_FIELDS;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value to store under `key`: a copy with the fields the key repeats set to null (the caller's object is untouched). */
export function storedValue(table: TableName | string, key: unknown, value: unknown): unknown {
  const fields = KEY_FIELDS[table as TableName];
  if (!fields || !Array.isArray(key) || !isRecord(value)) return value;
  let stored: Record<string, unknown> | undefined;
  for (const [field, part] of fields) {
    if (typeof value[field] === 'string' && value[field] === key[part]) {
      stored ??= { ...value };
      stored[field] = null;
    }
  }
  return stored ?? value;
}

/** The whole record as written: fields stored as null are read from `key` (in place: lmdb decodes a fresh object per read). */
export function restoredValue(table: TableName | string, key: unknown, value: unknown): unknown {
  const fields = KEY_FIELDS[table as TableName];
  if (!fields || !Array.isArray(key) || !isRecord(value)) return value;
  for (const [field, part] of fields) {
    if (value[field] === null && typeof key[part] === 'string') value[field] = key[part];
  }
  return value;
}
