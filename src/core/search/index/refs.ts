/**
 * Which entry each document number stands for, stored compactly: reference blocks (['d', block],
 * REFS_PER_BLOCK documents each) hold each entry's key with its first part as a dictionary id
 * (['n', dictionary, name] and back ['i', dictionary, id]), a full commit hash as 20 bytes and a
 * journal entry's ISO time as milliseconds.
 */
import { isoMillis, isoText } from '../../iso-time.js';
import type { WrittenDocument } from '../../store/tables.js';
import type { EntryKind } from '../documents.js';
import { readNumber, REFS_PER_BLOCK } from './layout.js';
import type { Dictionary, TermTable } from './layout.js';

/** A full commit hash, stored as 20 bytes instead of 40 characters. */
const FULL_HASH = /^[0-9a-f]{40}$/;
const FULL_HASH_LENGTH = 40;

/** The id of `name` in `dictionary`, assigned on first use (inside the caller's write transaction). */
export function assignId(table: TermTable, dictionary: Dictionary, name: string): number {
  const known = table.get(['n', dictionary, name]);
  if (typeof known === 'number') return known;
  const id = readNumber(table, ['s', `next:${dictionary}`]) + 1;
  table.putSync(['s', `next:${dictionary}`], id);
  table.putSync(['n', dictionary, name], id);
  table.putSync(['i', dictionary, id], name);
  return id;
}

/** A document's reference as stored: the compact id of its key's first part, then the rest packed (see DocumentRef). */
export function packedRef(document: WrittenDocument, idOf: (dictionary: Dictionary, name: string) => number): unknown[] {
  const key = document.key;
  const packed: unknown[] = [idOf(headDictionary(document.kind), key[0])];
  for (let at = 1; at < key.length; at += 1) packed.push(packPart(key[at] as string));
  return packed;
}

/** The dictionary the first part of an entry's key names: agents for journal entries, projects for commits. */
export function headDictionary(kind: EntryKind): Dictionary {
  return kind === 'commit' ? 'project' : 'agent';
}

/**
 * A key part as stored: a full commit hash as its 20 bytes, an ISO time (a journal entry's) as its
 * milliseconds, anything else as it is.
 */
function packPart(part: string): string | Uint8Array | number {
  if (part.length === FULL_HASH_LENGTH && FULL_HASH.test(part)) return Uint8Array.from(Buffer.from(part, 'hex'));
  return isoMillis(part) ?? part;
}

export function unpackPart(part: unknown): string | undefined {
  if (typeof part === 'string') return part;
  if (typeof part === 'number') return isoText(part);
  return part instanceof Uint8Array ? Buffer.from(part).toString('hex') : undefined;
}

/** Writes the references of documents `first`.. into their blocks, extending the last block stored. */
export function appendRefs(table: TermTable, first: number, refs: readonly unknown[][]): void {
  let done = 0;
  while (done < refs.length) {
    const document = first + done;
    const block = Math.floor((document - 1) / REFS_PER_BLOCK);
    const slot = (document - 1) % REFS_PER_BLOCK;
    const take = Math.min(REFS_PER_BLOCK - slot, refs.length - done);
    const stored = slot === 0 ? [] : table.get(['d', block]);
    const kept = Array.isArray(stored) ? stored.slice(0, slot) : [];
    table.putSync(['d', block], [...kept, ...refs.slice(done, done + take)]);
    done += take;
  }
}
