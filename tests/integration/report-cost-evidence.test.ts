/**
 * The built `agent-tracker report` on usage OpenCode stored at cost 0 while spending tokens, and on
 * projects whose git history was never read: every surface (text, --json, --csv, --html) says what
 * `recommend` says of the same usage (the catalog's estimate, marked), or that it does not know. Needs
 * `npm run build` first.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
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

interface Priced {
  model: string;
  costPerAcceptedCommit: number | null;
  costEstimated?: boolean;
  unpricedSessions?: number;
}
interface RecommendJson {
  roles: { agent: string; pick: Priced | null; runnerUp: Priced | null; alternatives?: Priced[] }[];
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

  it('prices usage stored at cost 0 from the catalog, marked estimated, and leaves an unknown model unknown (JSON)', () => {
    // By hand: 3 × 1,000,000 input tokens × $3 per million = $9.00, over 12 commits = $0.75.
    expect(row(report.rows, 'build', SONNET)).toMatchObject({ cost: 9, costPerCommit: 0.75, costEstimated: true, costUnknownSessions: 0 });
    expect(row(report.rows, 'build', GPT)).toMatchObject({ cost: 7.5, costPerCommit: 1.25, costEstimated: false, costUnknownSessions: 0 });
    expect(row(report.rows, 'build', MYSTERY)).toMatchObject({ cost: null, costPerCommit: null, costEstimated: false, costUnknownSessions: 2 });
    // The total knows $9 + $7.50 + $0.50 and says it is partial: 2 sessions of unknown cost left out.
    expect(report.totals).toMatchObject({ cost: 17, costPerCommit: null, costEstimated: true, costUnknownSessions: 2 });
  });

  it('gives the same cost per commit as recommend gives per accepted commit', () => {
    const recommended = runCli(sandbox, ['recommend', '--project', repo, '--json', ...db()]);
    expect(recommended.code).toBe(0);
    const roles = (JSON.parse(recommended.stdout) as RecommendJson).roles;
    const build = roles.find((role) => role.agent === 'build');
    const setups = [build?.pick, build?.runnerUp, ...(build?.alternatives ?? [])].filter((setup): setup is Priced => Boolean(setup));
    const sonnet = setups.find((setup) => setup.model === SONNET);
    expect(sonnet).toMatchObject({ costPerAcceptedCommit: 0.75, costEstimated: true });
    expect(row(report.rows, 'build', SONNET)?.costPerCommit).toBe(sonnet?.costPerAcceptedCommit);
  });

  it('carries the markers in CSV', () => {
    const csv = runCli(sandbox, ['report', '--csv', ...db()]);
    expect(csv.code).toBe(0);
    const [header, ...lines] = csv.stdout.trimEnd().split('\r\n').map((line) => line.split(','));
    const cell = (model: string, field: string) => lines.find((line) => line[header?.indexOf('model') ?? -1] === model)?.[header?.indexOf(field) ?? -1];
    expect([cell(SONNET, 'cost'), cell(SONNET, 'costPerCommit'), cell(SONNET, 'costEstimated')]).toEqual(['9', '0.75', 'true']);
    expect([cell(MYSTERY, 'cost'), cell(MYSTERY, 'costPerCommit'), cell(MYSTERY, 'costUnknownSessions')]).toEqual(['', '', '2']);
  });

  it('shows an estimate as "~", an unknown cost as unknown and a partial total with "+" in the text table, and says what they mean', () => {
    const text = runCli(sandbox, ['report', '--wide', ...db()]);
    expect(text.code).toBe(0);
    const lineOf = (model: string) => text.stdout.split('\n').find((line) => line.includes(model)) ?? '';
    // cost then cost/commit: each column with one precision (3 decimals: a value in each is under $1).
    expect(lineOf(SONNET)).toMatch(/\s~\$9\.000\s+~\$0\.750$/);
    expect(lineOf(GPT)).toMatch(/\s\$7\.500\s+\$1\.250$/);
    expect(lineOf(MYSTERY)).toMatch(/\sunknown\s+unknown$/);
    expect(text.stdout.split('\n').find((line) => line.startsWith('total'))).toMatch(/\s~\$17\.000\+\s+unknown$/);
    expect(text.stdout).not.toMatch(/\$0\.00\b/);
    expect(text.stdout).toContain('~ estimated');
    expect(text.stdout).toContain('+ partial: the cost of 2 sessions is unknown');
  });

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
    expect(at(reviewLine, 'tokens')).toBe('7.9k');
  });

  it('draws no setup of unknown cost in the HTML chart, marks the estimate, and reads every dollar in a column alike', () => {
    const page = path.join(sandbox.root, 'report.html');
    const written = runCli(sandbox, ['report', '--html', page, ...db()], {}, repo);
    expect(written.code).toBe(0);
    const html = fs.readFileSync(page, 'utf8');
    const chart = html.slice(html.indexOf('class="chart outcome-cost"'), html.indexOf('</svg>', html.indexOf('class="chart outcome-cost"')));
    expect(chart).not.toContain(MYSTERY);
    expect(chart).toContain(`build · ${SONNET}: user grade 5.00 over 12 commits, $0.750/commit (estimated), 12 commits`);
    // The axis: the dearest plotted ($1.25) with 25% headroom is $1.5625; ticks at 0, half and all of it.
    expect([...chart.matchAll(/text-anchor="middle">(\$[0-9.]+)<\/text>/g)].map((match) => match[1])).toEqual(['$0.000', '$0.781', '$1.563']);
    expect(html).toContain(`Not plotted (no user grade or no known cost yet): build · ${MYSTERY}`);
    const cell = (model: string) => new RegExp(`<th scope="row">${model.replace(/[.]/g, '\\.')}</th>(.*?)</tr>`).exec(html)?.[1] ?? '';
    expect(cell(SONNET)).toContain('<span class="value">~$0.750</span>');
    expect(cell(MYSTERY)).toContain('>unknown</td>');
    expect(html).toContain('~ marks a cost estimated from the genai-prices price catalog');
    // The activity chart: the review agent's one commit is "1 commit".
    const activity = html.slice(html.indexOf('class="chart activity"'));
    expect(activity).toMatch(/<title>\S+ review: 1 commit<\/title>/);
    expect(activity).not.toContain(' 1 commits');
  });
});
