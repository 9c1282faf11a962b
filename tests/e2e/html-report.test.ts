/**
 * The HTML report opened in headless Chromium (Debian's `chromium`): it renders without console
 * errors, holds one chart per setup group, and a screenshot is kept in tests/e2e/output/.
 * Needs `npm run build` first.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { resolveConfig } from '../../src/core/config.js';
import { Store } from '../../src/core/store/store.js';
import { makeSandbox, removeSandbox, ROOT, runBounded, runCli } from '../helpers/sandbox.js';
import type { RunResult, Sandbox } from '../helpers/sandbox.js';
import { block, recordHistory } from '../helpers/synthetic-history.js';
import { termIndexer } from '../../src/core/search/indexer.js';

const OUTPUT = path.join(ROOT, 'tests', 'e2e', 'output');
const CHROMIUM_TIMEOUT_MS = 60_000;
/** How Chromium prints a page's console messages with --enable-logging=stderr. */
const CONSOLE_LINE = /:CONSOLE[:(]/;

const BLOCKS = [
  block({ agent: 'build', model: 'anthropic/claude-sonnet', project: '/p/rust', sessions: 10, grades: [[5, 2], [2, 2]], bugs: 1 }),
  block({ agent: 'build', model: 'openai/gpt-5', project: '/p/rust', sessions: 8, grades: [[1, 1]], bugs: 3, costPerSession: 0.1 }),
  block({ agent: 'general', model: 'openai/gpt-5', project: '/p/web', sessions: 6, grades: [[2, 5]] }),
  block({ agent: 'plan', model: 'anthropic/claude-sonnet', project: '/p/web', sessions: 5, commitsPerSession: 0, grades: [] }),
  // Models are not validated like agent names: a hostile one must arrive as text.
  block({ agent: 'review', model: 'local/<b>"bold"&</b>', project: '/p/web', sessions: 2, grades: [[2, 2]] }),
];

function chromiumPath(): string {
  const found = spawnSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).stdout.trim();
  if (!found) throw new Error('chromium is not installed: run "node scripts/test-prerequisites.mjs" (npm test does this before the e2e tests)');
  return found;
}

function chromium(sandbox: Sandbox, profile: string, args: string[]): Promise<RunResult> {
  return runBounded(
    chromiumPath(),
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      `--user-data-dir=${path.join(sandbox.root, profile)}`,
      '--enable-logging=stderr',
      '--v=0',
      ...args,
    ],
    { cwd: sandbox.root, env: { ...sandbox.env }, timeoutMs: CHROMIUM_TIMEOUT_MS },
  );
}

const consoleLines = (stderr: string) => stderr.split('\n').filter((line) => CONSOLE_LINE.test(line));

describe('HTML report in headless Chromium', () => {
  let sandbox: Sandbox;
  let page: string;

  beforeAll(() => {
    sandbox = makeSandbox();
    const config = resolveConfig({ options: { databasePath: sandbox.dbPath }, env: {}, home: sandbox.home });
    const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
    try {
      recordHistory(BLOCKS, { store, config, stepHours: 7 });
    } finally {
      store.close();
    }
    page = path.join(sandbox.root, 'report.html');
    const result = runCli(sandbox, ['report', '--html', page, '--db', sandbox.dbPath]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`Wrote the HTML report (${BLOCKS.length} setups) to ${page}\n`);
  });
  afterAll(() => removeSandbox(sandbox));

  it('would notice console errors (control page)', async () => {
    const control = path.join(sandbox.root, 'control.html');
    fs.writeFileSync(control, '<!DOCTYPE html><html><body><script>console.error("control-error")</script></body></html>');
    const result = await chromium(sandbox, 'profile-control', ['--dump-dom', `file://${control}`]);
    expect(result.code).toBe(0);
    expect(consoleLines(result.stderr).join('\n')).toContain('control-error');
  }, CHROMIUM_TIMEOUT_MS + 5000);

  it('renders without console errors and holds one chart per setup group', async () => {
    const result = await chromium(sandbox, 'profile-dom', ['--dump-dom', `file://${page}`]);
    expect(result.code).toBe(0);
    expect(consoleLines(result.stderr)).toEqual([]);
    const dom = result.stdout;
    const groups = [...dom.matchAll(/<table class="setup-group" data-group="([^"]*)"/g)].map((match) => match[1]);
    const agents = [...new Set(BLOCKS.map((b) => b.agent))].sort();
    expect(groups).toEqual(agents);
    expect(dom.match(/class="chart outcome-cost"/g)).toHaveLength(1);
    expect(dom.match(/class="chart activity"/g)).toHaveLength(1);
    // The page opens with the recommendation for the project asked for (here the current folder).
    expect(dom).toContain(`Recommended setup for ${sandbox.root}`);
    expect(dom.match(/class="chart recommendation"/g)).toHaveLength(1);
    expect(dom.indexOf('class="chart recommendation"')).toBeLessThan(dom.indexOf('class="chart outcome-cost"'));
    expect(dom).toContain('cost / accepted commit');
    // The hostile names arrive as text, not markup.
    expect(dom).not.toContain('<b>');
    expect(dom).toContain('local/&lt;b&gt;"bold"&amp;&lt;/b&gt;');
  }, CHROMIUM_TIMEOUT_MS + 5000);

  it('fits a 1280-pixel window: no horizontal scroll of the page, and no two column headers overlap', async () => {
    // A page of the test's own loads the report in a 1280-pixel frame and measures it (the report runs no script).
    const probe = path.join(sandbox.root, 'layout-probe.html');
    fs.writeFileSync(
      probe,
      `<!DOCTYPE html><html><body style="margin:0"><iframe id="r" src="file://${page}" style="width:1280px;height:2000px;border:0"></iframe>
<script>
document.getElementById('r').addEventListener('load', () => {
  const doc = document.getElementById('r').contentDocument;
  const overlaps = [];
  for (const row of doc.querySelectorAll('thead tr')) {
    const boxes = [...row.querySelectorAll('th')].map((th) => th.getBoundingClientRect());
    for (let i = 1; i < boxes.length; i += 1) if (boxes[i].left < boxes[i - 1].right - 0.5) overlaps.push(row.parentElement.parentElement.dataset.group + ':' + i);
  }
  const result = { scrollWidth: doc.documentElement.scrollWidth, clientWidth: doc.documentElement.clientWidth, headerRows: doc.querySelectorAll('thead tr').length, overlaps };
  document.body.setAttribute('data-layout', JSON.stringify(result));
});
</script></body></html>`,
    );
    const result = await chromium(sandbox, 'profile-layout', ['--allow-file-access-from-files', '--window-size=1300,2000', '--virtual-time-budget=10000', '--dump-dom', `file://${probe}`]);
    expect(result.code).toBe(0);
    const measured = /data-layout="([^"]*)"/.exec(result.stdout)?.[1];
    expect(measured).toBeDefined();
    const layout = JSON.parse((measured ?? '{}').replace(/&quot;/g, '"')) as { scrollWidth: number; clientWidth: number; headerRows: number; overlaps: string[] };
    // 1280 pixels less the vertical scroll bar, if the window shows one.
    expect(layout.clientWidth).toBeGreaterThan(1240);
    expect(layout.clientWidth).toBeLessThanOrEqual(1280);
    expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth);
    expect(layout.headerRows).toBeGreaterThanOrEqual(new Set(BLOCKS.map((b) => b.agent)).size);
    expect(layout.overlaps).toEqual([]);
  }, CHROMIUM_TIMEOUT_MS + 5000);

  it('keeps a screenshot', async () => {
    fs.mkdirSync(OUTPUT, { recursive: true });
    const screenshot = path.join(OUTPUT, 'html-report.png');
    fs.rmSync(screenshot, { force: true });
    const result = await chromium(sandbox, 'profile-shot', ['--window-size=1280,2000', `--screenshot=${screenshot}`, `file://${page}`]);
    expect(result.code).toBe(0);
    expect(consoleLines(result.stderr)).toEqual([]);
    const png = fs.readFileSync(screenshot);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.length).toBeGreaterThan(20_000);
  }, CHROMIUM_TIMEOUT_MS + 5000);
});
