/**
 * The empty report names what is missing, run in-process on an empty temporary database: a project
 * folder that does not exist, no backfilled sessions (and the command that imports them).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/program.js';
import { Store } from '../../src/core/store/store.js';

let dir: string;
const savedConfigHome = process.env.XDG_CONFIG_HOME;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-empty-report-'));
  process.env.XDG_CONFIG_HOME = path.join(dir, 'config');
  // An empty database: readers create none.
  Store.open({ path: path.join(dir, 'db.lmdb'), maxDatabaseSize: 1 << 24 }).close();
});
afterAll(() => {
  if (savedConfigHome === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedConfigHome;
  fs.rmSync(dir, { recursive: true, force: true });
});

async function report(args: string[]): Promise<string> {
  let out = '';
  const code = await main(['report', ...args, '--db', path.join(dir, 'db.lmdb')], { out: (text) => void (out += `${text}\n`), err: () => undefined });
  expect(code).toBe(0);
  return out;
}

describe('an empty report', () => {
  it('says the --project folder does not exist', async () => {
    const missing = path.join(dir, 'no-such-folder');
    expect(await report(['--project', missing])).toContain(`The folder ${missing} does not exist, and no work was recorded for it.`);
  });

  it('says there are no backfilled sessions and names the command that imports them', async () => {
    const out = await report(['--source', 'backfill']);
    expect(out).toContain('No backfilled sessions.');
    expect(out).toContain('Run "agent-tracker backfill"');
  });

  it('names an existing project with no work, and how to fill it', async () => {
    expect(await report(['--project', dir])).toContain(`No work recorded in ${dir}.`);
  });
});
