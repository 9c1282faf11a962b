/**
 * A child's or worker's script, found from the module that starts it, in each layout that module can
 * run from: tsc's dist/ (the script beside it), a bundle's chunk (the script a folder away), or the
 * TypeScript sources under jest (the built copy under dist/).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { builtScript } from '../../src/core/fs/built-script.js';

let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-built-script-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Writes an empty file at `relative` under the root; its full path. */
function touch(relative: string): string {
  const file = path.join(root, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '');
  return file;
}

const moduleAt = (relative: string) => pathToFileURL(path.join(root, relative)).href;

describe('the script a module starts', () => {
  it('is the one beside the module when it is there, even if the bundle layout has one too', () => {
    const beside = touch('a/dist/cli/commands/worker.js');
    touch('a/dist/cli/commands/commands/worker.js');
    expect(builtScript(moduleAt('a/dist/cli/commands/start.js'), './worker.js', './commands/worker.js')).toBe(beside);
  });

  it("from a bundle's chunk, is the first later candidate that exists", () => {
    const inBundle = touch('b/dist/cli/commands/worker.js');
    expect(builtScript(moduleAt('b/dist/cli/chunk-main-x1.js'), './worker.js', './missing/worker.js', './commands/worker.js')).toBe(inBundle);
  });

  it('from the sources, is the first candidate under dist/ instead of src/, whether it exists or not', () => {
    const expected = path.join(root, 'c', 'dist', 'cli', 'commands', 'worker.js');
    expect(builtScript(moduleAt('c/src/cli/commands/start.ts'), './worker.js', './commands/worker.js')).toBe(expected);
  });
});
