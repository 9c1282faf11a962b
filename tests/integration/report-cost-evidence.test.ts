/**
 * The built `agent-tracker report` on usage OpenCode stored at cost 0 while spending tokens, and on
 * projects whose git history was never read: every surface (text, --json, --csv, --html) says what
 * `recommend` says of the same usage (the catalog's estimate, marked), or that it does not know. Needs
 * `npm run build` first.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { resolveConfig } from '../../src/core/config.js';
import { Store } from '../../src/core/store/store.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import type { ReportRow } from '../../src/core/report/report.js';
import { makeRepo, makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { block, recordHistory } from '../helpers/synthetic-history.js';

const SONNET = 'anthropic/claude-3-5-sonnet-20241022';
const GPT = 'openai/gpt-4o';
/** A model no price catalog knows. */
const MYSTERY = 'acme/mystery-model-9';
const NO_TOKENS_BUT_INPUT = { input: 1_000_000, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 };
const SMALL = { input: 1_000, output: 200, reasoning: 0, cacheRead: 0, cacheWrite: 0 };
/** 7,850 tokens: 7.85 thousand, which reads 7.9k (a half rounds up). */
const ON_A_HALF = { input: 7_000, output: 850, reasoning: 0, cacheRead: 0, cacheWrite: 0 };

interface ReportJson {
  rows: ReportRow[];
  totals: ReportRow;
}

describe('report: cost OpenCode did not store, and rates git never saw', () => {
  let sandbox: Sandbox;
  let gone: string;
  let repo: string;
  let report: ReportJson;
  const db = () => ['--db', sandbox.dbPath];
  const row = (rows: readonly ReportRow[], agent: string, model: string) => rows.find((candidate) => candidate.agent === agent && candidate.model === model);

  beforeAll(() => {
    sandbox = makeSandbox();
    // Work on a folder that no longer exists (git was never read there) and on a real repository.
    gone = path.join(sandbox.root, 'gone-project');
    repo = makeRepo(sandbox, 'app');
    const config = resolveConfig({ options: { databasePath: sandbox.dbPath }, env: {}, home: sandbox.home });
    const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
    try {
      recordHistory(
        [
          // 3 sessions × 1,000,000 input tokens at cost 0 (OpenCode had no price), 12 commits.
          block({ agent: 'build', model: SONNET, project: gone, sessions: 3, commitsPerSession: 4, costPerSession: 0, tokensPerSession: NO_TOKENS_BUT_INPUT, grades: [[5, 5]] }),
          // $2.50 a session as OpenCode recorded it: $7.50 over 6 commits.
          block({ agent: 'build', model: GPT, project: gone, sessions: 3, commitsPerSession: 2, costPerSession: 2.5, tokensPerSession: SMALL, grades: [[2, 2]] }),
          // Tokens spent at cost 0 on a model nobody prices: 2 sessions of unknown cost.
          block({ agent: 'build', model: MYSTERY, project: gone, sessions: 2, commitsPerSession: 1, costPerSession: 0, tokensPerSession: SMALL, grades: [[2, 2]] }),
          // One session on a real repository, whose history the report reads.
          block({ agent: 'review', model: GPT, project: repo, sessions: 1, commitsPerSession: 1, costPerSession: 0.5, tokensPerSession: ON_A_HALF, grades: [] }),
        ],
        { store, config },
      );
    } finally {
      store.close();
    }
    const json = runCli(sandbox, ['report', '--json', ...db()]);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    report = JSON.parse(json.stdout) as ReportJson;
  });
  afterAll(() => removeSandbox(sandbox));

  it('shows "-" and null, not 0.0%, for revert and fix rates of work git never saw; a read repository gives 0', () => {
    for (const model of [SONNET, GPT, MYSTERY]) expect(row(report.rows, 'build', model)).toMatchObject({ revertRate: null, followUpFixRate: null });
    expect(row(report.rows, 'review', GPT)).toMatchObject({ revertRate: 0, followUpFixRate: 0 });
    const text = runCli(sandbox, ['report', '--wide', ...db()]);
    const header = text.stdout.split('\n')[0] ?? '';
    // Columns stand two spaces apart ("cfg edits" is one title); no cell of these rows holds a space.
    const columns = header.trim().split(/\s{2,}/);
    const cells = (line: string) => line.trim().split(/\s+/);
    const at = (line: string, title: string) => cells(line)[columns.indexOf(title)];
    const sonnetLine = text.stdout.split('\n').find((line) => line.includes(SONNET)) ?? '';
    const reviewLine = text.stdout.split('\n').find((line) => line.startsWith('review')) ?? '';
    expect([at(sonnetLine, 'revert%'), at(sonnetLine, 'fix%')]).toEqual(['-', '-']);
    expect([at(reviewLine, 'revert%'), at(reviewLine, 'fix%')]).toEqual(['0.0%', '0.0%']);
  });
});
