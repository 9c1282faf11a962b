/**
 * Why the central database cannot be used right now, as ONE line that says what happened and what
 * to do. Every check of the database's place (preflight, the out-of-process verification, the schema
 * version) reports through these builders, so the advice is the same in the plugin and the CLI.
 */
import os from 'node:os';
import path from 'node:path';

/** What kind of trouble: it decides the advice, and whether tracking can go on in memory. */
export type ProblemKind = 'permission' | 'disk-full' | 'damaged' | 'newer-schema' | 'not-a-file';

/** A problem with the database's place, with its one-line message. */
export class StoreProblem extends Error {
  override name = 'StoreProblem';
  constructor(
    readonly kind: ProblemKind,
    message: string,
  ) {
    super(message);
  }
}

const OTHER_PATH = 'or set another path with the "databasePath" option or AGENT_TRACKER_DB_PATH';
const KIB = 1024;

/** The numeric id of the user this process runs as: chown takes it, and it is right under every runtime. */
function userId(): string {
  return String(process.getuid?.() ?? '$(id -u)');
}

/** "user NAME (uid N)"; Bun names a user without a passwd entry "unknown", so the uid is always given. */
function userName(): string {
  let name = '';
  try {
    name = os.userInfo().username;
  } catch {
    // no passwd entry
  }
  return name && name !== 'unknown' ? `user ${name} (uid ${userId()})` : `uid ${userId()}`;
}

/** A size in KiB or MiB, whichever reads better. */
export function formatBytes(bytes: number): string {
  if (bytes >= KIB * KIB) return `${(bytes / (KIB * KIB)).toFixed(1)} MiB`;
  return `${Math.ceil(bytes / KIB)} KiB`;
}

/** The folder cannot be written and holds no writable lock file. */
export function folderNotWritable(folder: string, cause: string): StoreProblem {
  return new StoreProblem(
    'permission',
    `the agent-tracker database folder ${folder} is not writable by ${userName()} (${cause}) and has no writable lock file: ` +
      `run "chown ${userId()} '${folder}' && chmod u+rwx '${folder}'", ${OTHER_PATH}.`,
  );
}

/** A file of the database (data or lock) cannot be read or written by this user. */
export function fileNotAccessible(file: string, cause: string): StoreProblem {
  return new StoreProblem(
    'permission',
    `the agent-tracker database file ${file} cannot be opened by ${userName()} (${cause}): ` +
      `run "chown ${userId()} '${file}' && chmod u+rw '${file}'", ${OTHER_PATH}.`,
  );
}

/** Something that is not a file (a folder, a file where a folder should be) is in the way. */
export function notAFile(file: string, cause: string): StoreProblem {
  return new StoreProblem('not-a-file', `the agent-tracker database at ${file} cannot be used: ${cause}. Remove what is in the way, ${OTHER_PATH}.`);
}

/** Too little room on the disk for the next write. */
export function diskFull(folder: string, free: number, needed: number): StoreProblem {
  return new StoreProblem(
    'disk-full',
    `the disk holding the agent-tracker database folder ${folder} is full: ${formatBytes(free)} free, ` +
      `the next write needs at least ${formatBytes(needed)}: free ${formatBytes(needed - free)} or more, ${OTHER_PATH}; ` +
      'tracking goes on in memory and is saved at the end of the session.',
  );
}

/** The file is damaged: the advice is `repair`, never "move it aside". */
export function damaged(file: string, cause: string): StoreProblem {
  return new StoreProblem(
    'damaged',
    `the agent-tracker database at ${file} is damaged (${cause}): run "agent-tracker repair" ` +
      '(it keeps the damaged file aside and recovers every readable record); tracking goes on in memory until then.',
  );
}

/** Written by a newer agent-tracker: read, never written. */
export function newerSchema(file: string, found: number, known: number): StoreProblem {
  return new StoreProblem(
    'newer-schema',
    `the agent-tracker database at ${file} was written by a newer agent-tracker (schema ${found}, this one knows up to ${known}); ` +
      'update it (npm install -g opencode-agent-tracker): until then the database is only read and nothing is written to it.',
  );
}

/** The folder a database file lives in. */
export function folderOf(file: string): string {
  return path.dirname(file);
}
