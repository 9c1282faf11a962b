/**
 * A FIFO planted at a name the tracker reads synchronously blocks that read, and with it OpenCode's
 * main thread, for good: an agent needs only `mkdir -p .agent && mkfifo .agent/status.json`, and every
 * later turn of the project hung at its flush. Each read runs in a child of the built modules (a hang
 * in this process would hang the test file), bounded; each returns, saying what it left alone.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { makeSandbox, removeSandbox, ROOT } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

/** Far longer than any of these reads takes; a read still blocked then is the hang. */
const CHILD_TIMEOUT_MS = 20_000;
const MARK = 'RESULT ';

let sandbox: Sandbox;
beforeAll(() => {
  sandbox = makeSandbox('agent-tracker-planted-fifos-');
});
afterAll(() => removeSandbox(sandbox));

const built = (module: string): string => JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', module)).href);

/** Runs `body` (an async function body, with `mkfifo` and the built modules imported) in a bounded child; its returned value. */
function inChild(body: string): { timedOut: boolean; result?: unknown; stderr: string } {
  const script = `
    import { execFileSync } from 'node:child_process';
    const mkfifo = (file) => execFileSync('mkfifo', [file]);
    const { writeStatusExport } = await import(${built('core/tracking/status-export.js')});
    const { mergeSpills } = await import(${built('core/store/spill.js')});
    const { lastKnownEntries } = await import(${built('core/store/verify.js')});
    const { Store } = await import(${built('core/store/store.js')});
    const { DEFAULT_RULES } = await import(${built('core/rules.js')});
    const { ProjectSecrets } = await import(${built('opencode/guards/project-secrets.js')});
    const { EnvFolders, envFoldersPath } = await import(${built('opencode/guards/env-folders.js')});
    const { StoredTextMasker } = await import(${built('opencode/guards/stored-text.js')});
    const result = await (async () => { ${body} })();
    console.log(${JSON.stringify(MARK)} + JSON.stringify(result ?? null));
  `;
  const file = path.join(sandbox.root, `child-${Date.now()}.mjs`);
  fs.writeFileSync(file, script);
  const child = spawnSync(process.execPath, [file], { cwd: sandbox.root, env: sandbox.env, encoding: 'utf8', timeout: CHILD_TIMEOUT_MS });
  const line = child.stdout.split('\n').find((text) => text.startsWith(MARK));
  return { timedOut: child.error !== undefined && /ETIMEDOUT/.test(String(child.error)), ...(line ? { result: JSON.parse(line.slice(MARK.length)) } : {}), stderr: child.stderr };
}

describe('a FIFO planted where the tracker reads', () => {
  it('at .agent/status.json: the export after a flush refuses it in one line instead of hanging', () => {
    const project = path.join(sandbox.root, 'project');
    fs.mkdirSync(path.join(project, '.agent'), { recursive: true });
    const run = inChild(`
      mkfifo(${JSON.stringify(path.join(project, '.agent', 'status.json'))});
      const store = { tables: { agents: { get: () => undefined } } };
      try {
        return writeStatusExport({ store, rules: DEFAULT_RULES, project: ${JSON.stringify(project)}, always: false }, ['build']);
      } catch (error) {
        return error.message;
      }
    `);
    expect(run.timedOut).toBe(false);
    expect(run.result).toMatch(/status\.json: it is a named pipe \(FIFO\)/);
  });

  it('at a spill file beside the database: the merge at start leaves it, naming it, and goes on', () => {
    const database = path.join(sandbox.root, 'spill', 'db.lmdb');
    fs.mkdirSync(path.dirname(database), { recursive: true });
    const fifo = `${database}.spill-20260101T000000000Z-planted.json`;
    const run = inChild(`
      const store = Store.open({ path: ${JSON.stringify(database)}, maxDatabaseSize: 64 * 1024 * 1024 });
      mkfifo(${JSON.stringify(fifo)});
      try {
        return mergeSpills(store, DEFAULT_RULES);
      } finally {
        store.close();
      }
    `);
    expect(run.timedOut).toBe(false);
    expect(run.result).toMatchObject({ merged: 0, left: [{ file: fifo, reason: expect.stringContaining('not a regular file') }] });
  });

  it("at the database's verification sidecar: its counts are unknown, not waited for", () => {
    const database = path.join(sandbox.root, 'sidecar', 'db.lmdb');
    fs.mkdirSync(path.dirname(database), { recursive: true });
    const run = inChild(`
      mkfifo(${JSON.stringify(`${database}.verified`)});
      return { entries: lastKnownEntries(${JSON.stringify(database)}) ?? 'unknown' };
    `);
    expect(run.timedOut).toBe(false);
    expect(run.result).toEqual({ entries: 'unknown' });
  });

  it("at the other projects' kept folders beside the database: every folder is listed, every value masked, the pipe named and left", () => {
    const database = path.join(sandbox.root, 'folders', 'db.lmdb');
    const other = path.join(sandbox.root, 'folders', 'other-project');
    fs.mkdirSync(path.join(other, 'config'), { recursive: true });
    fs.writeFileSync(path.join(other, 'config', '.env'), 'OTHER_TOKEN=sk-other-4455667788\n');
    const run = inChild(`
      const file = envFoldersPath(${JSON.stringify(database)});
      mkfifo(file);
      const lines = [];
      const logger = { info: (line) => lines.push(line), warn: (line) => lines.push(line), error: (line) => lines.push(line) };
      const masker = new StoredTextMasker(undefined, logger, Date.now, new EnvFolders(file, logger));
      await masker.addKnownProjects(() => [${JSON.stringify(other)}], '/elsewhere');
      return { masked: masker.mask('token sk-other-4455667788'), lines, stillPipe: (await import('node:fs')).lstatSync(file).isFIFO() };
    `);
    expect(run.timedOut).toBe(false);
    expect(run.result).toEqual({ masked: 'token [masked: OTHER_TOKEN from config/.env]', lines: [expect.stringMatching(/env-folders\.json.*named pipe \(FIFO\)/)], stillPipe: true });
  });

  it('behind a link named like an env file: masking reads the real env file, names the link, and never waits on the pipe', () => {
    const project = path.join(sandbox.root, 'secrets');
    fs.mkdirSync(project, { recursive: true });
    fs.writeFileSync(path.join(project, '.env'), 'API_TOKEN=sk-live-0123456789\n');
    const fifo = path.join(sandbox.root, 'pipe');
    const run = inChild(`
      mkfifo(${JSON.stringify(fifo)});
      (await import('node:fs')).symlinkSync(${JSON.stringify(fifo)}, ${JSON.stringify(path.join(project, '.env.hang'))});
      const warnings = [];
      const secrets = new ProjectSecrets(${JSON.stringify(project)}, { info() {}, warn: (line) => warnings.push(line), error() {} });
      const masker = await secrets.masker();
      return { masked: masker.mask('token sk-live-0123456789'), warnings };
    `);
    expect(run.timedOut).toBe(false);
    expect(run.result).toEqual({ masked: expect.not.stringContaining('sk-live-0123456789'), warnings: [expect.stringContaining('.env.hang is not a regular file')] });
  });
});
