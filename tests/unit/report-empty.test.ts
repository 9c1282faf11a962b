/**
 * The empty report names what is missing, run in-process on an empty temporary database: a project
 * folder that does not exist, no backfilled sessions (and the command that imports them).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { emptyReportText } from '../../src/cli/empty-report.js';
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

  it('names the time window asked for, whichever bounds were given, and how to widen it', async () => {
    expect(await report(['--until', '2020-01-01'])).toContain('No work recorded before 2020-01-01T00:00:00.000Z. Try a later --until.');
    const exists = () => true;
    const since = '2025-03-01T00:00:00.000Z';
    const until = '2025-04-01T00:00:00.000Z';
    expect(emptyReportText({ since }, exists)).toBe(`No work recorded since ${since}. Try an earlier --since.`);
    expect(emptyReportText({ since, until }, exists)).toBe(`No work recorded between ${since} and ${until}. Try a wider window (--since, --until).`);
    expect(emptyReportText({ until, source: 'live' }, exists)).toBe(`No work recorded before ${until} (live-tracked sessions only). Try a later --until.`);
    expect(emptyReportText({ project: '/p/app', until }, exists)).toMatch(new RegExp(`^No work recorded in /p/app before ${until.replace(/\./g, '\\.')}\\. Work there`));
    expect(emptyReportText({ source: 'backfill', since, until }, exists)).toMatch(/^No backfilled sessions between .* and .*\. Run "agent-tracker backfill"/);
  });

  it('says the same on the HTML page, under a heading that names the whole window', async () => {
    const file = path.join(dir, 'empty.html');
    await report(['--html', file, '--since', '2019-01-01', '--until', '2020-01-01', '--source', 'live']);
    const html = fs.readFileSync(file, 'utf8');
    expect(html).toContain('all projects, since 2019-01-01T00:00:00.000Z, before 2020-01-01T00:00:00.000Z, live-tracked sessions only');
    expect(html).toContain('No work recorded between 2019-01-01T00:00:00.000Z and 2020-01-01T00:00:00.000Z (live-tracked sessions only). Try a wider window (--since, --until).');
  });

  it('says when only live-tracked sessions were asked for and none exist', () => {
    expect(emptyReportText({ source: 'live' }, () => true)).toBe('No live-tracked sessions yet. Work in OpenCode with the agent-tracker plugin enabled, then look again.');
  });
});
