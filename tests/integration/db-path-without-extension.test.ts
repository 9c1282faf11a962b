/**
 * A database path without an extension (`AGENT_TRACKER_DB_PATH=~/tracker`, `--db ./records`): lmdb-js
 * makes a folder for such a path unless told otherwise, and every check of the file then refused it, so
 * the first write's records could no longer be read. The built CLI, the store it and the plugin's
 * worker open, and the advice for a folder an earlier build made.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { resolveConfig } from '../../src/core/config.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import type { ReportRow } from '../../src/core/report/report.js';
import { makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { block, recordHistory, totalCommits } from '../helpers/synthetic-history.js';

describe('a database path without an extension', () => {
  let sandbox: Sandbox;
  let file: string;
  beforeEach(() => {
    sandbox = makeSandbox('agent-tracker-no-extension-');
    file = path.join(sandbox.root, 'records', 'tracker');
  });
  afterEach(() => removeSandbox(sandbox));

  it('is one file that a CLI writer makes and every reader then reads', () => {
    const project = path.join(sandbox.root, 'shop');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'shop', dependencies: { react: '^18.0.0' } }));
    const written = runCli(sandbox, ['init-project', project, '--db', file]);
    expect({ code: written.code, stderr: written.stderr }).toEqual({ code: 0, stderr: '' });
    expect(fs.statSync(file).isFile()).toBe(true);
    // lmdb's lock file sits beside it; no data.mdb folder anywhere.
    expect(fs.readdirSync(path.dirname(file)).filter((name) => !name.startsWith('tracker.'))).toEqual(['tracker', 'tracker-lock']);
    for (const command of ['status', 'doctor', 'report']) {
      const read = runCli(sandbox, [command, '--json', '--db', file]);
      expect({ command, code: read.code, stderr: read.stderr }).toEqual({ command, code: 0, stderr: '' });
    }
    const doctor = JSON.parse(runCli(sandbox, ['doctor', '--json', '--db', file]).stdout) as { counts: Record<string, number> };
    expect(doctor.counts.projects).toBe(1);
  });

  it('holds what the store wrote there, as the report shows it', () => {
    const config = resolveConfig({ options: { databasePath: file }, env: {}, home: sandbox.home });
    const work = block({ agent: 'build', model: 'fake/a', project: path.join(sandbox.root, 'shop'), sessions: 3, commitsPerSession: 2 });
    const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
    try {
      recordHistory([work], { store, config });
    } finally {
      store.close();
    }
    expect(fs.statSync(file).isFile()).toBe(true);
    const report = runCli(sandbox, ['report', '--json', '--db', file]);
    expect(report.stderr).toBe('');
    const rows = (JSON.parse(report.stdout) as { rows: ReportRow[] }).rows;
    expect(rows.map((row) => [row.agent, row.model, row.commits])).toEqual([['build', 'fake/a', totalCommits(work)]]);
  });

  it('names the records in a folder an earlier build made there, and moving them as told keeps them', () => {
    // What builds before this fix left at such a path: a folder holding the database as data.mdb.
    const config = resolveConfig({ options: { databasePath: file }, env: {}, home: sandbox.home });
    const work = block({ agent: 'build', model: 'fake/a', project: path.join(sandbox.root, 'shop'), sessions: 2, commitsPerSession: 5 });
    const built = path.join(sandbox.root, 'built.lmdb');
    const store = Store.open({ path: built, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
    try {
      recordHistory([work], { store, config });
    } finally {
      store.close();
    }
    const records = path.join(file, 'data.mdb');
    fs.mkdirSync(file, { recursive: true });
    fs.renameSync(built, records);

    const refused = runCli(sandbox, ['report', '--json', '--db', file]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`its records are in ${records}: to keep them, move that file out, remove the folder and move the file to ${file}`);
    expect(fs.existsSync(records)).toBe(true);

    const aside = path.join(sandbox.root, 'kept.mdb');
    fs.renameSync(records, aside);
    fs.rmSync(file, { recursive: true });
    fs.renameSync(aside, file);
    const report = runCli(sandbox, ['report', '--json', '--db', file]);
    expect(report.stderr).toBe('');
    expect((JSON.parse(report.stdout) as { rows: ReportRow[] }).rows.map((row) => row.commits)).toEqual([totalCommits(work)]);
  });
});
