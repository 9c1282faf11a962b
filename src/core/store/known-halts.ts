/**
 * The agents last known halted, in a small file beside the database (`<db>.halted.json`), so a halt
 * holds while the database cannot be read: a file an agent's shell damaged on purpose opened as an
 * empty record, and every halted agent worked on until the user's repair. Written after each write
 * that touched an agent; read only while the store is not open. Evidence of one more kind, not a seal:
 * the agent is the same OS user and can remove this file too.
 */
import { writeFileAtomic } from '../fs/atomic-write.js';
import { readOwnFileText } from '../fs/read-bounded.js';

const KNOWN_HALTS_SUFFIX = '.halted.json';
/** Agent names are short (validation.ts): this holds thousands of them. */
const MAX_KNOWN_HALTS_BYTES = 1024 * 1024;

export function knownHaltsPath(database: string): string {
  return `${database}${KNOWN_HALTS_SUFFIX}`;
}

/** The agents the file lists as halted; none when it is missing or not one of ours. */
export function readKnownHalts(database: string): Set<string> {
  try {
    const parsed = JSON.parse(readOwnFileText(knownHaltsPath(database), MAX_KNOWN_HALTS_BYTES)) as { halted?: unknown };
    return new Set(Array.isArray(parsed.halted) ? parsed.halted.filter((agent): agent is string => typeof agent === 'string') : []);
  } catch {
    return new Set();
  }
}

/**
 * Brings the file up to date with the halts of `touched` (agent → halted now), written only when one
 * of them changed. A file that cannot be written is left as it was: the database still holds the halts.
 */
export function updateKnownHalts(database: string, touched: ReadonlyMap<string, boolean>): void {
  const halted = readKnownHalts(database);
  let changed = false;
  for (const [agent, isHalted] of touched) {
    if (isHalted === halted.has(agent)) continue;
    changed = true;
    if (isHalted) halted.add(agent);
    else halted.delete(agent);
  }
  if (!changed) return;
  try {
    writeFileAtomic(knownHaltsPath(database), `${JSON.stringify({ halted: [...halted].sort() })}\n`);
  } catch {
    // Kept as it was; the next write that touches an agent tries again.
  }
}
