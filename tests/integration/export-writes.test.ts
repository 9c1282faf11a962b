/**
 * Writes of the CLI reach their whole destination or fail loudly, and replace nothing but a
 * regular file: `export` through real pipes (a child reading it), into FIFOs, devices and links.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { assertReplaceable } from '../../src/core/fs/atomic-write.js';
import { CLI, makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

/** Activities written so the export is several pipe buffers (64 KiB each) long. */
const ACTIVITIES = 600;
/** What `head -c` keeps in the pipe test: more than one pipe buffer, less than the export. */
const HEAD_BYTES = 100_000;
const BOUND_MS = 60_000;

/** The export without its header line (which carries the time of the export). */
function withoutHeader(text: string): string {
  return text.slice(text.indexOf('\n') + 1);
}

/** Runs `agent-tracker export` with its stdout a real pipe into `reader` (cat, head), which writes `out`. */
async function exportThroughPipe(sandbox: Sandbox, db: string, reader: string[], out: string): Promise<{ code: number | null; stderr: string }> {
  const outFd = fs.openSync(out, 'w');
  try {
    const consumer = spawn(reader[0] as string, reader.slice(1), { stdio: ['pipe', outFd, 'ignore'] });
    const pipe = consumer.stdin;
    if (!pipe) throw new Error('the reader has no stdin pipe');
    const producer = spawn(process.execPath, [CLI, 'export', '--db', db], { env: sandbox.env, stdio: ['ignore', pipe, 'pipe'] });
    // The parent keeps no end of the pipe: the export writes straight into the reader.
    pipe.destroy();
    let stderr = '';
    producer.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      producer.kill('SIGKILL');
      consumer.kill('SIGKILL');
    }, BOUND_MS);
    const [code] = await Promise.all([
      new Promise<number | null>((resolve) => producer.on('close', resolve)),
      new Promise<void>((resolve) => consumer.on('close', () => resolve())),
    ]);
    clearTimeout(timer);
    return { code, stderr };
  } finally {
    fs.closeSync(outFd);
  }
}

describe('export writes', () => {
  let sandbox: Sandbox;
  let tracker: TempTracker;
  let full: string;

  beforeAll(() => {
    sandbox = makeSandbox('agent-tracker-export-writes-');
    tracker = tempTracker();
    for (let i = 0; i < ACTIVITIES; i += 1) {
      tracker.service.logActivity({ agent: 'build', project: '/p/big', task: `task ${i} ${'words of a long task description '.repeat(8)}`, outcome: 'done' });
    }
    tracker.service.flush('test');
    tracker.store.close();
    const file = path.join(sandbox.root, 'full.ndjson');
    const result = runCli(sandbox, ['export', file, '--db', tracker.config.databasePath]);
    expect(result.code).toBe(0);
    full = fs.readFileSync(file, 'utf8');
    expect(full.length).toBeGreaterThan(3 * HEAD_BYTES);
  });
  afterAll(() => {
    tracker.dispose();
    removeSandbox(sandbox);
  });

  it('delivers the whole export through a pipe into cat, past 64 KiB', async () => {
    const out = path.join(sandbox.root, 'cat.ndjson');
    const result = await exportThroughPipe(sandbox, tracker.config.databasePath, ['cat'], out);
    expect(result).toEqual({ code: 0, stderr: '' });
    expect(withoutHeader(fs.readFileSync(out, 'utf8'))).toBe(withoutHeader(full));
  });

  it('delivers what head -c asks for and then fails loudly in one line when head closes the pipe', async () => {
    const out = path.join(sandbox.root, 'head.ndjson');
    const result = await exportThroughPipe(sandbox, tracker.config.databasePath, ['head', '-c', String(HEAD_BYTES)], out);
    const kept = fs.readFileSync(out, 'utf8');
    expect(kept.length).toBe(HEAD_BYTES);
    expect(withoutHeader(kept)).toBe(withoutHeader(full).slice(0, HEAD_BYTES - (full.indexOf('\n') + 1)));
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/export.*reader closed the pipe.*incomplete/);
  });

  it.each<[string, (target: string) => void, string]>([
    ['a named pipe (FIFO)', (target) => spawnSync('mkfifo', [target]), 'a named pipe'],
    ['a symbolic link to a file', (target) => fs.symlinkSync(path.join(path.dirname(target), 'victim.txt'), target), 'a symbolic link'],
    ['a folder', (target) => fs.mkdirSync(target), 'a folder'],
  ])('refuses to replace %s, in one line, leaving it as it was', (_name, plant, kind) => {
    const dir = fs.mkdtempSync(path.join(sandbox.root, 'target-'));
    fs.writeFileSync(path.join(dir, 'victim.txt'), 'keep me\n');
    const target = path.join(dir, 'out.ndjson');
    plant(target);
    const before = fs.lstatSync(target);
    for (const args of [['export', target], ['report', '--html', target]]) {
      const result = runCli(sandbox, [...args, '--db', tracker.config.databasePath]);
      expect(result.code).toBe(1);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(`refusing to write ${target}: it is ${kind}`);
      const after = fs.lstatSync(target);
      expect([after.ino, after.mode, after.isFile()]).toEqual([before.ino, before.mode, before.isFile()]);
    }
    expect(fs.readFileSync(path.join(dir, 'victim.txt'), 'utf8')).toBe('keep me\n');
    // Nothing half-written is left beside it.
    expect(fs.readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses to write over the database it reads or lmdb\'s lock file, in one line, and the database keeps every record', () => {
    const db = tracker.config.databasePath;
    const before = runCli(sandbox, ['export', '--db', db]);
    expect(before.code).toBe(0);
    for (const target of [db, `${db}-lock`, path.relative(sandbox.root, db)]) {
      for (const args of [['export', target], ['report', '--html', target]]) {
        const result = runCli(sandbox, [...args, '--db', db]);
        expect({ code: result.code, lines: result.stderr.trimEnd().split('\n').length }).toEqual({ code: 1, lines: 1 });
        expect(result.stderr).toMatch(/refusing to write .*: it is a file of the agent-tracker database .*; choose another name/);
      }
    }
    const after = runCli(sandbox, ['export', '--db', db]);
    expect(after.code).toBe(0);
    expect(withoutHeader(after.stdout)).toBe(withoutHeader(before.stdout));
    // A name beside it that only begins like it is an ordinary file.
    expect(runCli(sandbox, ['export', `${db}.ndjson`, '--db', db]).code).toBe(0);
  });

  // Checked without writing: on a build without the check, a CLI run against /dev/full as root replaces the device node.
  it('takes a device node (/dev/full, /dev/null) for what it is: not a file to replace', () => {
    for (const device of ['/dev/full', '/dev/null']) {
      expect(() => assertReplaceable(device)).toThrow(`refusing to write ${device}: it is a device`);
      expect(fs.lstatSync(device).isCharacterDevice()).toBe(true);
    }
  });
});
