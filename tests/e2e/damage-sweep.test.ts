/**
 * Every page of a realistic database overwritten with noise, one copy per page: the built CLI's
 * `status --json`, `report --json` and `doctor` (all three on the first pages of each class of page,
 * one of them on each further page), and the plugin's own open path (check, read every record, write
 * one), each in a child process with a timeout. None may die by a signal or hang, and
 * each answer must equal the undamaged database's or say the database is damaged. Then the real
 * `opencode run` on a damaged meta, branch, leaf and overflow page: OpenCode exits normally, the
 * session's tool runs, and the damage is named once. And `repair --dry-run` on every page: what it
 * keeps plus what it names lost is what the file held, never "unknown".
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { termIndexer } from '../../src/core/search/indexer.js';
import { lmdbTreeProblem } from '../../src/core/store/lmdb-walk.js';
import { SALVAGED_TABLES } from '../../src/core/store/salvage.js';
import { Store, tableNamed } from '../../src/core/store/store.js';
import { recordVerified } from '../../src/core/store/verify.js';
import { bash, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import type { Answer } from '../helpers/damage-sweep.js';
import { buildSweepDatabase, classify, cliEnv, inParallel, normalised, PAGE_SIZE, pluginOpenScript, runChild, SWEEP_MAX_SIZE, writeNoisyCopy } from '../helpers/damage-sweep.js';
import { CLI, makeRepo, makeSandbox, removeSandbox, runOpencode, writeGlobalConfig } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

jest.setTimeout(600_000);

/** Children at a time: the machine is shared, and each CLI run may start a check child of its own. */
const PARALLEL = 6;
const COMMANDS: readonly (readonly string[])[] = [['status', '--json'], ['report', '--json'], ['doctor']];
/**
 * Pages of one class (what the check names the damage as: a meta page, a leaf of table "sessions",
 * an overflow page, an unused page, …) that every command is asked about; each further page of the
 * class is asked of one command, in turn, so every page is covered and every class by every command.
 */
const PAGES_PER_CLASS_FOR_EVERY_COMMAND = 2;
const REPLY = 'the proof file is written';

/** A damaged page's class: the check's description of it without the page numbers ("unused" when it names none). */
function pageClass(problem: string | undefined): string {
  return problem === undefined ? 'unused' : problem.replace(/\d+/g, '#');
}

describe('a page of noise anywhere in the database', () => {
  let sandbox: Sandbox;
  let pristine: Buffer;
  let pages: number;
  let home: string;
  /** How many records each history table of the undamaged file holds. */
  let held: Record<string, number>;
  /** Per page, what the check names when that page is noise (undefined: nothing, the page is not in use). */
  let problems: (string | undefined)[];

  beforeAll(() => {
    sandbox = makeSandbox('agent-tracker-sweep-');
    home = path.join(sandbox.root, 'cli-home');
    fs.mkdirSync(home, { recursive: true });
    const built = buildSweepDatabase(path.join(sandbox.root, 'built'));
    const store = Store.open({ path: built, maxDatabaseSize: SWEEP_MAX_SIZE, readOnly: true, indexer: termIndexer });
    held = Object.fromEntries(SALVAGED_TABLES.map((table) => [table, [...tableNamed(store.tables, table).getKeys()].length]));
    store.close();
    pristine = fs.readFileSync(built);
    pages = pristine.length / PAGE_SIZE;
    problems = Array.from({ length: pages }, (_, page) => {
      const file = path.join(sandbox.root, 'kinds', `page-${page}.lmdb`);
      writeNoisyCopy(pristine, page, file);
      const problem = lmdbTreeProblem(file);
      fs.rmSync(file);
      return problem;
    });
  });

  afterAll(() => removeSandbox(sandbox));

  /** A fresh copy of the undamaged file: each question is asked of a file never checked before. */
  function cleanCopy(name: string): string {
    const file = path.join(sandbox.root, 'clean', name, 'agent-tracker.lmdb');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, pristine);
    return file;
  }

  it('never kills or hangs status, report or doctor, and never answers wrong numbers without saying so', async () => {
    expect(pages).toBeGreaterThan(40);
    const baselines = await Promise.all(
      COMMANDS.map(async (args, index) => {
        const file = cleanCopy(`cli-${index}`);
        const result = await runChild(process.execPath, [CLI, ...args], cliEnv(home, file));
        expect({ args, code: result.code }).toEqual({ args, code: 0 });
        return normalised(result.stdout, file);
      }),
    );
    const started = Date.now();
    const seenOfClass = new Map<string, number>();
    const jobs = problems.flatMap((problem, page) => {
      const nth = seenOfClass.get(pageClass(problem)) ?? 0;
      seenOfClass.set(pageClass(problem), nth + 1);
      const commands = nth < PAGES_PER_CLASS_FOR_EVERY_COMMAND ? COMMANDS.map((_, command) => command) : [nth % COMMANDS.length];
      return commands.map((command) => ({ page, command, args: COMMANDS[command] as readonly string[] }));
    });
    expect(new Set(jobs.map((job) => job.page)).size).toBe(pages);
    const answers = await inParallel(jobs, PARALLEL, async ({ page, command, args }) => {
      const file = path.join(sandbox.root, 'sweep-cli', `page-${page}-${command}`, 'agent-tracker.lmdb');
      writeNoisyCopy(pristine, page, file);
      const result = await runChild(process.execPath, [CLI, ...args], cliEnv(home, file));
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
      return { page, command: args[0], answer: classify(result, baselines[command] as string, file) };
    });
    const seconds = (Date.now() - started) / 1000;
    const tally = (answer: Answer): number => answers.filter((row) => row.answer === answer).length;
    console.log(`damage sweep, ${pages} pages of ${seenOfClass.size} classes, ${jobs.length} runs of ${COMMANDS.length} commands in ${seconds.toFixed(1)} s: same ${tally('same')}, damage ${tally('damage')}, wrong ${tally('wrong')}, signal ${tally('signal')}, hang ${tally('hang')}`);
    expect(answers.filter((row) => row.answer === 'signal' || row.answer === 'hang' || row.answer === 'wrong')).toEqual([]);
    // The sweep meant something: most pages are in use, and their damage was named.
    expect(tally('damage')).toBeGreaterThan(answers.length / 2);
  });

  it("never kills or hangs the plugin's open path, and a store it opens reads what the undamaged one does", async () => {
    const baseline = await runChild(process.execPath, ['--input-type=module', '-e', pluginOpenScript(cleanCopy('plugin'))], cliEnv(home, ''));
    const expected = JSON.parse(baseline.stdout.trim()) as { counts?: Record<string, number> };
    expect(expected.counts?.usage).toBeGreaterThan(0);
    const started = Date.now();
    const answers = await inParallel(
      Array.from({ length: pages }, (_, page) => page),
      PARALLEL,
      async (page) => {
        const file = path.join(sandbox.root, 'sweep-plugin', `page-${page}`, 'agent-tracker.lmdb');
        writeNoisyCopy(pristine, page, file);
        const result = await runChild(process.execPath, ['--input-type=module', '-e', pluginOpenScript(file)], cliEnv(home, file));
        fs.rmSync(path.dirname(file), { recursive: true, force: true });
        if (result.timedOut) return { page, answer: 'hang' };
        if (result.signal !== null || result.code !== 0) return { page, answer: `ended ${result.signal ?? result.code}` };
        const said = JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as { problem?: string; counts?: Record<string, number> };
        if (said.problem !== undefined) return { page, answer: /damaged .*agent-tracker repair/.test(said.problem) ? 'damage' : `problem: ${said.problem}` };
        return { page, answer: JSON.stringify(said.counts) === JSON.stringify(expected.counts) ? 'same' : 'wrong' };
      },
    );
    console.log(`plugin open path, ${pages} pages in ${((Date.now() - started) / 1000).toFixed(1)} s: same ${answers.filter((row) => row.answer === 'same').length}, damage ${answers.filter((row) => row.answer === 'damage').length}`);
    expect(answers.filter((row) => row.answer !== 'same' && row.answer !== 'damage')).toEqual([]);
  });

  it('repair (dry run) on every page keeps what reads and names the rest lost: kept + lost is what the file held', async () => {
    const started = Date.now();
    const rows = await inParallel(
      Array.from({ length: pages }, (_, page) => page),
      PARALLEL,
      async (page) => {
        const file = path.join(sandbox.root, 'sweep-repair', `page-${page}`, 'agent-tracker.lmdb');
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, pristine);
        // As after a session: the tracker recorded the counts of the state it last verified.
        recordVerified(file, held);
        writeNoisyCopy(pristine, page, file);
        const result = await runChild(process.execPath, [CLI, 'repair', '--dry-run', '--json'], cliEnv(home, file));
        fs.rmSync(path.dirname(file), { recursive: true, force: true });
        if (result.timedOut || result.signal !== null || result.code !== 0) return { page, wrong: [`ended ${result.timedOut ? 'hung' : result.signal ?? result.code}: ${result.stderr.trim()}`], kept: 0 };
        const report = JSON.parse(result.stdout) as { tables: Record<string, { kept: number; recovered: number; lost: number | null }> };
        const wrong = SALVAGED_TABLES.filter((table) => {
          const counts = report.tables[table];
          return !counts || counts.lost === null || counts.kept + counts.recovered + counts.lost !== held[table];
        });
        return { page, wrong, kept: SALVAGED_TABLES.reduce((sum, table) => sum + (report.tables[table]?.kept ?? 0), 0) };
      },
    );
    const total = Object.values(held).reduce((sum, count) => sum + count, 0);
    const least = Math.min(...rows.map((row) => row.kept));
    console.log(`repair sweep, ${pages} pages in ${((Date.now() - started) / 1000).toFixed(1)} s: least kept ${least} of ${total}; kept per page ${rows.map((row) => `${row.page}:${row.kept}`).join(' ')}`);
    expect(rows.filter((row) => row.wrong.length > 0)).toEqual([]);
    // One page of noise costs one page of records (or the last write, for a meta page), never the file.
    expect(least).toBeGreaterThan(total / 2);
  });

  describe('under the real OpenCode', () => {
    let model: FakeModel;

    beforeAll(async () => {
      model = await startFakeModel(scriptByPrompt({ 'FAULT-TURN': [bash('echo works > proof.txt'), say(REPLY)] }), { lifetimeMs: 20 * 60_000, maxRequests: 200 });
      writeGlobalConfig(sandbox, { modelUrl: model.url });
    });

    afterAll(async () => {
      await model.close();
    });

    /** The first page whose damage the check names with `pattern`: a page of that kind. */
    function pageOfKind(pattern: RegExp): number {
      for (let page = 2; page < pages; page += 1) {
        const problem = problems[page];
        if (problem && pattern.test(problem)) return page;
      }
      throw new Error(`no page of the sweep database matches ${pattern}`);
    }

    it('runs the session normally on a damaged meta, branch, leaf and overflow page, naming the damage once', async () => {
      const kinds: [string, number][] = [
        ['meta', 1],
        ['branch', pageOfKind(/\(a branch of table/)],
        ['leaf', pageOfKind(/\(a leaf of table "sessions"\)/)],
        ['overflow', pageOfKind(/overflow page/)],
        ['free list', pageOfKind(/of the free-page list/)],
      ];
      for (const [kind, page] of kinds) {
        const db = path.join(sandbox.root, 'opencode', kind.replace(' ', '-'), 'agent-tracker.lmdb');
        writeNoisyCopy(pristine, page, db);
        const repo = makeRepo(sandbox, `repo-${kind.replace(' ', '-')}`);
        const run = await runOpencode(sandbox, repo, `FAULT-TURN ${kind}: write the proof file`, { env: { AGENT_TRACKER_DB_PATH: db } });
        const damageLines = run.stderr.split('\n').filter((line) => /agent-tracker/.test(line) && /agent-tracker repair/.test(line));
        expect({ kind, page, code: run.code, proof: fs.existsSync(path.join(repo, 'proof.txt')), replied: run.stdout.includes(REPLY), damageLines: damageLines.length }).toEqual({
          kind,
          page,
          code: 0,
          proof: true,
          replied: true,
          damageLines: 1,
        });
      }
    });
  });
});
