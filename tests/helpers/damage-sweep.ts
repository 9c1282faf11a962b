/**
 * The damaged-page sweep: a realistic database written through the real store, a copy of it per
 * page with that page overwritten by (seeded) noise, and the built CLI and the plugin's own open
 * path run on each copy in child processes with timeouts. Each answer is classed against the
 * undamaged database's answer to the same question.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolveConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { ROOT } from './sandbox.js';
import { block, recordHistory } from './synthetic-history.js';
import { seededRandom } from './synthetic-truth.js';

export const PAGE_SIZE = 4096;
export const SWEEP_MAX_SIZE = 64 * 1024 * 1024;
/** Long enough for a verify child, a salvage child and the command itself on a loaded machine. */
export const SWEEP_CHILD_TIMEOUT_MS = 30_000;

/** How one answer on a damaged copy compares with the undamaged database's. */
export type Answer = 'same' | 'damage' | 'wrong' | 'signal' | 'hang';

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

/**
 * A realistic database in `folder`: three agents over three projects (sessions, commits, grades,
 * retrospectives, tool calls, bug reports), plus one bug report long enough to live on overflow pages.
 */
export function buildSweepDatabase(folder: string): string {
  const config = resolveConfig({ options: { databasePath: path.join(folder, 'agent-tracker.lmdb') }, env: {}, home: folder });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: SWEEP_MAX_SIZE, indexer: termIndexer });
  try {
    recordHistory(
      [
        block({ agent: 'build', model: 'anthropic/claude-sonnet', project: '/work/alpha', sessions: 16, bugs: 2 }),
        block({ agent: 'plan', model: 'openai/gpt-5', project: '/work/beta', sessions: 6 }),
        block({ agent: 'review', model: 'google/gemini', project: '/work/gamma', sessions: 4, bugs: 1 }),
      ],
      { store, config },
    );
    const service = new TrackingService({ store, config, logger: silentLogger, project: '/work/alpha' });
    const random = seededRandom(7);
    // Text that does not compress (within the 4,000-character cap): its record outgrows half a page.
    const long = Array.from({ length: 3_900 }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(random() * 36)]).join('');
    service.noteSession('ses_long', { project: '/work/alpha' });
    service.noteModelRequest('ses_long', 'build', 'anthropic/claude-sonnet');
    service.reportBug({ agent: 'build', sessionId: 'ses_long', project: '/work/alpha', description: `a long report ${long}` });
    const outcome = service.endTurn('ses_long');
    if (!outcome.ok) throw outcome.error;
  } finally {
    store.close();
  }
  return config.databasePath;
}

/** A copy of `pristine` at `file` with page `page` overwritten by noise seeded by the page number. */
export function writeNoisyCopy(pristine: Buffer, page: number, file: string): void {
  const random = seededRandom(1_000 + page);
  const bytes = Buffer.from(pristine);
  for (let offset = 0; offset < PAGE_SIZE; offset += 1) bytes[page * PAGE_SIZE + offset] = Math.floor(random() * 256);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
}

/** Runs `command args` bounded by a timeout; a killed child shows as timedOut, not as a signal of its own. */
export function runChild(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = SWEEP_CHILD_TIMEOUT_MS): Promise<ChildResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal: timedOut ? null : signal, timedOut, stdout, stderr });
    });
  });
}

/** Runs `work` over `items` with at most `limit` at a time, results in the items' order. */
export async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The answer with the database's own path put as `<db>`, so that copies compare. */
export function normalised(text: string, file: string): string {
  return text.split(file).join('<db>');
}

const DAMAGE_LINE = /damaged|agent-tracker repair/i;

/** Classes one answer: dead, hung, equal to the undamaged one, saying the database is damaged, or wrong. */
export function classify(result: ChildResult, baseline: string, file: string): Answer {
  if (result.timedOut) return 'hang';
  if (result.signal !== null) return 'signal';
  if (result.code === 0 && normalised(result.stdout, file) === baseline) return 'same';
  if (result.code !== 0 || DAMAGE_LINE.test(result.stdout) || DAMAGE_LINE.test(result.stderr)) return 'damage';
  return 'wrong';
}

/** The environment a CLI child runs in: its own HOME and XDG folders, the copy as its database. */
export function cliEnv(home: string, file: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    AGENT_TRACKER_DB_PATH: file,
  };
}

const OPEN_CHECKED = pathToFileURL(path.join(ROOT, 'dist', 'core', 'store', 'open-checked.js')).href;
const INDEXER = pathToFileURL(path.join(ROOT, 'dist', 'core', 'search', 'indexer.js')).href;

/**
 * The plugin's open path in a child (the built openChecked, as plugin.ts calls it): it waits for the
 * out-of-process check, then reads every record of every table and writes one record, as a session
 * would. Prints `{"problem": line}` or `{"counts": {...}}`.
 */
export function pluginOpenScript(file: string): string {
  return `
    const { openChecked } = await import(${JSON.stringify(OPEN_CHECKED)});
    const { termIndexer } = await import(${JSON.stringify(INDEXER)});
    const done = (answer) => { console.log(JSON.stringify(answer)); process.exit(0); };
    // The check runs in an unref'd child (it must not keep a finished host alive); this stands in for the host.
    setTimeout(() => done({ problem: 'no answer from the check' }), ${SWEEP_CHILD_TIMEOUT_MS - 5_000});
    const readAll = (store) => {
      const counts = {};
      for (const [name, table] of Object.entries(store.tables)) {
        let count = 0;
        for (const entry of table.getRange()) if (entry.value !== undefined) count += 1;
        counts[name] = count;
      }
      return counts;
    };
    const store = openChecked({ path: ${JSON.stringify(file)}, maxDatabaseSize: ${SWEEP_MAX_SIZE}, indexer: termIndexer }, {
      problem: (problem) => done({ problem: problem.message }),
      ready: (opened) => {
        const counts = readAll(opened);
        opened.write((tables) => tables.meta.putSync('damage-sweep', 'written'));
        done({ counts });
      },
    });
    if (store.attached) done({ counts: readAll(store) });`;
}
