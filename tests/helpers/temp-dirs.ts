/** Temporary folders for a test file: made on demand, removed after each test. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from '@jest/globals';

/** Call at the top of a test file or describe block; the returned function makes one folder. */
export function useTempDirs(prefix: string): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/**
 * Dates `root` and every folder below it an hour back: older than the env scan's racy window, so a
 * later scan may reuse their listings (src/opencode/guards/project-secrets.ts).
 */
export function ageFolders(root: string): void {
  const hourAgo = new Date(Date.now() - 3_600_000);
  const visit = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) visit(path.join(dir, entry.name));
    fs.utimesSync(dir, hourAgo, hourAgo);
  };
  visit(root);
}

/** Writes `text` to `file` below `root`, making the folders on the way. */
export function writeIn(root: string, file: string, text: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
}
