/**
 * The built `agent-tracker report` and `recommend` commands over a synthetic history, with project
 * profiles made by the real `init-project` on real folders. Needs `npm run build` first.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { resolveConfig } from '../../src/core/config.js';
import { Store } from '../../src/core/store/store.js';
import { REPORT_FIELDS } from '../../src/core/report/table.js';
import type { ReportRow } from '../../src/core/report/report.js';
import { makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { block, recordHistory, totalCommits } from '../helpers/synthetic-history.js';
import type { WorkBlock } from '../helpers/synthetic-history.js';
import { termIndexer } from '../../src/core/search/indexer.js';

const A = { agent: 'build', model: 'anthropic/claude-sonnet' };
const B = { agent: 'build', model: 'openai/gpt-5' };
const GOOD = { grades: [[2, 2], [5, 2]] as [2 | 5, 2 | 5][], bugs: 1, failuresPerSession: 1 };
const POOR = { grades: [[1, 1], [-1, 1]] as [1 | -1, 1][], bugs: 8, failuresPerSession: 4 };

function makeProject(root: string, name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  return dir;
}

const cargo = (name: string) =>
  `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\ntokio = "1"\naxum = "0.7"\nserde = "1"\n`;
const packageJson = (name: string) => JSON.stringify({ name, dependencies: { react: '^18.0.0', 'react-dom': '^18.0.0' }, devDependencies: { vite: '^5.0.0' } });

/** Splits RFC 4180 CSV (no newlines inside cells here) into rows of cells. */
function parseCsv(text: string): string[][] {
  return text
    .trimEnd()
    .split('\r\n')
    .map((line) => {
      const cells: string[] = [];
      let cell = '';
      let quoted = false;
      for (let i = 0; i < line.length; i += 1) {
        const char = line[i] as string;
        if (quoted && char === '"' && line[i + 1] === '"') {
          cell += '"';
          i += 1;
        } else if (char === '"') quoted = !quoted;
        else if (char === ',' && !quoted) {
          cells.push(cell);
          cell = '';
        } else cell += char;
      }
      cells.push(cell);
      return cells;
    });
}

describe('agent-tracker report and recommend (built CLI)', () => {
  let sandbox: Sandbox;
  let blocks: WorkBlock[];
  let rustTarget: string;
  let tsTarget: string;
  const db = () => ['--db', sandbox.dbPath];

  beforeAll(() => {
    sandbox = makeSandbox();
    const rustOne = makeProject(sandbox.root, 'rust-one', { 'Cargo.toml': cargo('one'), 'AGENTS.md': 'Scope: api\n' });
    const rustTwo = makeProject(sandbox.root, 'rust-two', { 'Cargo.toml': cargo('two'), 'AGENTS.md': 'Scope: api\n' });
    const tsOne = makeProject(sandbox.root, 'ts-one', { 'package.json': packageJson('one'), 'tsconfig.json': '{}', 'AGENTS.md': 'Scope: web\n' });
    rustTarget = makeProject(sandbox.root, 'rust-new', { 'Cargo.toml': cargo('new'), 'AGENTS.md': 'Scope: api\n' });
    tsTarget = makeProject(sandbox.root, 'ts-new', { 'package.json': packageJson('new'), 'tsconfig.json': '{}', 'AGENTS.md': 'Scope: web\n' });
    for (const project of [rustOne, rustTwo, tsOne]) {
      const result = runCli(sandbox, ['init-project', project, ...db()]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    }
    const work = (setup: typeof A, project: string, quality: typeof GOOD | typeof POOR) =>
      block({ ...setup, project, sessions: 12, commitsPerSession: 4, toolCallsPerSession: 10, ...quality });
    blocks = [
      work(A, rustOne, GOOD),
      work(A, rustTwo, GOOD),
      work(B, rustOne, POOR),
      work(B, rustTwo, POOR),
      work(A, tsOne, POOR),
      work(B, tsOne, GOOD),
      block({ agent: 'build', model: 'lucky/tiny', project: rustTwo, sessions: 1, commitsPerSession: 2, failuresPerSession: 0, grades: [[5, 5]] }),
    ];
    const config = resolveConfig({ options: { databasePath: sandbox.dbPath }, env: {}, home: sandbox.home });
    const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
    try {
      recordHistory(blocks, { store, config });
    } finally {
      store.close();
    }
  });
  afterAll(() => removeSandbox(sandbox));

  it('gives the same rows in --json and --csv', () => {
    for (const by of ['setup', 'agent', 'model', 'project']) {
      const json = runCli(sandbox, ['report', '--by', by, '--json', ...db()]);
      const csv = runCli(sandbox, ['report', '--by', by, '--csv', ...db()]);
      expect(json.code).toBe(0);
      expect(csv.code).toBe(0);
      const rows = (JSON.parse(json.stdout) as { rows: ReportRow[] }).rows;
      const [header, ...lines] = parseCsv(csv.stdout);
      expect(header).toEqual([...REPORT_FIELDS]);
      expect(lines).toHaveLength(rows.length);
      rows.forEach((row, i) => {
        header?.forEach((field, column) => {
          const value = row[field as keyof ReportRow];
          const cell = lines[i]?.[column];
          if (value === null) expect({ by, field, cell }).toEqual({ by, field, cell: '' });
          else if (typeof value === 'number') expect({ by, field, cell: Number(cell) }).toEqual({ by, field, cell: value });
          else if (typeof value === 'boolean') expect({ by, field, cell }).toEqual({ by, field, cell: String(value) });
          else expect({ by, field, cell }).toEqual({ by, field, cell: value });
        });
      });
    }
  });

  it('totals every commit and session that was recorded', () => {
    const report = JSON.parse(runCli(sandbox, ['report', '--json', ...db()]).stdout) as { rows: ReportRow[]; totals: ReportRow };
    expect(report.totals.commits).toBe(blocks.reduce((sum, b) => sum + totalCommits(b), 0));
    expect(report.totals.sessions).toBe(blocks.reduce((sum, b) => sum + b.sessions, 0));
    expect(report.rows.reduce((sum, row) => sum + row.commits, 0)).toBe(report.totals.commits);
  });

  it('prints an aligned table and refuses bad options with one clear line', () => {
    const table = runCli(sandbox, ['report', ...db()]);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^agent\s+model\s+sessions/);
    const badSince = runCli(sandbox, ['report', '--since', 'yesterday', ...db()]);
    expect(badSince.code).toBe(1);
    expect(badSince.stderr.trim()).toBe('agent-tracker report: --since must be an ISO date or time such as 2025-01-31 or 2025-01-31T12:00:00Z, got "yesterday"');
    const both = runCli(sandbox, ['report', '--json', '--csv', ...db()]);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('choose one of --json and --csv');
    const badBy = runCli(sandbox, ['report', '--by', 'color', ...db()]);
    expect(badBy.stderr).toContain('--by must be one of setup, agent, model, project');
  });

  it('recommends A for a Rust folder and B for a TypeScript folder, classified on the spot', () => {
    type Output = { project: { path: string; language: string }; recommendations: { agent: string; model: string; score: number; n: number; why: string }[] };
    const rust = JSON.parse(runCli(sandbox, ['recommend', '--project', rustTarget, '--json', ...db()]).stdout) as Output;
    expect(rust.project).toMatchObject({ path: rustTarget, language: 'rust' });
    expect(rust.recommendations[0]).toMatchObject(A);
    for (const setup of rust.recommendations) {
      expect(Object.keys(setup)).toEqual(expect.arrayContaining(['agent', 'model', 'score', 'n', 'why']));
    }
    const lucky = rust.recommendations.find((r) => r.model === 'lucky/tiny');
    expect(lucky?.n).toBe(2);
    expect(lucky?.score).toBeLessThan(rust.recommendations[0]?.score ?? 0);
    const ts = JSON.parse(runCli(sandbox, ['recommend', '--project', tsTarget, '--json', ...db()]).stdout) as Output;
    expect(ts.project.language).toBe('typescript');
    expect(ts.recommendations[0]).toMatchObject(B);
    const text = runCli(sandbox, ['recommend', '--project', rustTarget, ...db()]);
    expect(text.stdout).toContain(`- ${A.agent}: ${A.model} — `);
  });

  it('says there is no history on an empty database', () => {
    const empty = path.join(sandbox.root, 'empty.lmdb');
    // An empty database (a reader given no database at all says so and exits 1: cli.test.ts).
    Store.open({ path: empty, maxDatabaseSize: 2 ** 20 }).close();
    const result = runCli(sandbox, ['recommend', '--project', rustTarget, '--json', '--db', empty]);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as { recommendations: unknown[]; message: string };
    expect(output.recommendations).toEqual([]);
    expect(output.message).toMatch(/^No history yet/);
  });
});
