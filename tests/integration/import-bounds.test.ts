/**
 * `import` through the built CLI reads only a bounded regular file, keeps `maxDatabaseSize`, and
 * refuses records outside the live rules' ranges, writing nothing in every case.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MIB } from '../../src/core/config.js';
import { pinsPath } from '../../src/core/integrity/option-pins.js';
import { MAX_IMPORTED_COST, MAX_IMPORTED_COUNT } from '../../src/core/integrity/import-checks.js';
import { exportRecords } from '../../src/core/store/transfer.js';
import { makeSandbox, removeSandbox, runCli, writeGlobalConfig } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { block, profile, recordHistory, storeProfiles } from '../helpers/synthetic-history.js';
import { tempTracker } from '../helpers/temp-store.js';

/** Activities in the large export: well over 1 MiB of records. */
const LARGE_ACTIVITIES = 2500;

function oneLine(stderr: string): boolean {
  return stderr.trimEnd().split('\n').length === 1;
}

/** The export of a fresh tracker after `fill`, as text. */
function exportOf(fill: (tracker: ReturnType<typeof tempTracker>) => void): string {
  const tracker = tempTracker();
  try {
    fill(tracker);
    tracker.service.flush('test');
    let text = '';
    exportRecords(tracker.store, (chunk) => (text += chunk));
    return text;
  } finally {
    tracker.dispose();
  }
}

describe('import reads a bounded regular file and obeys the limits', () => {
  let sandbox: Sandbox;
  let db: string;

  beforeAll(() => {
    sandbox = makeSandbox('agent-tracker-import-bounds-');
    db = path.join(sandbox.root, 'target.lmdb');
  });
  afterAll(() => removeSandbox(sandbox));

  it('refuses /dev/zero at once, in one line', () => {
    const result = runCli(sandbox, ['import', '/dev/zero', '--db', db]);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(true);
    expect(result.stderr).toContain('/dev/zero is not a regular file');
  });

  it('refuses a FIFO at once (no writer ever opens it), in one line', () => {
    const fifo = path.join(sandbox.root, 'export.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const result = runCli(sandbox, ['import', fifo, '--db', db]);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(true);
    expect(result.stderr).toContain(`${fifo} is not a regular file`);
  });

  it('keeps a 1 MiB maxDatabaseSize: a larger import is refused before anything is written', () => {
    const text = exportOf((tracker) => {
      for (let i = 0; i < LARGE_ACTIVITIES; i += 1) {
        tracker.service.logActivity({ agent: 'build', project: '/p/big', task: `task ${i} ${'a long description of the work '.repeat(12)}`, outcome: 'done' });
      }
    });
    expect(text.length).toBeGreaterThan(MIB);
    const file = path.join(sandbox.root, 'large.ndjson');
    fs.writeFileSync(file, text);
    writeGlobalConfig(sandbox, { modelUrl: 'http://127.0.0.1:9' });
    // The user's own way to set a restraining option (it is pinned, so the CLI obeys it).
    expect(runCli(sandbox, ['config', 'set', 'maxDatabaseSize', String(MIB)]).code).toBe(0);
    try {
      const limited = path.join(sandbox.root, 'limited.lmdb');
      const result = runCli(sandbox, ['import', file, '--db', limited]);
      expect(result.code).toBe(1);
      expect(oneLine(result.stderr)).toBe(true);
      expect(result.stderr).toMatch(/past maxDatabaseSize \(1048576 bytes\).*Nothing was imported/);
      expect(fs.statSync(limited).size).toBeLessThanOrEqual(MIB);
      const status = runCli(sandbox, ['status', '--json', '--db', limited]);
      expect(JSON.parse(status.stdout)).toEqual({ agents: [] });
    } finally {
      fs.rmSync(path.join(sandbox.configDir, 'opencode.json'));
      fs.rmSync(pinsPath(sandbox.configDir));
    }
  });

  it('recommend over the largest values an import accepts prints finite scores, never 1e301 or NaN', () => {
    const project = path.join(sandbox.root, 'rust-target');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'Cargo.toml'), '[package]\nname = "target"\nversion = "0.1.0"\n');
    const text = exportOf((tracker) => {
      storeProfiles(tracker.store, tracker.config, [profile(project, 'rust', 'none', 'cli')]);
      recordHistory([block({ agent: 'build', model: 'forged/model', project, sessions: 2, grades: [[5, 5]] })], { store: tracker.store, config: tracker.config });
    });
    // Every usage record pushed to the top of each range the import keeps.
    const forged = text.trimEnd().split('\n').map((line) => {
      const record = JSON.parse(line) as { kind: string; value?: Record<string, unknown> };
      if (record.kind !== 'sessions' || !record.value) return line;
      const huge = MAX_IMPORTED_COUNT;
      return JSON.stringify({ ...record, value: { ...record.value, userGradedCommits: huge, userGradeSum: 5 * huge, gradedCommits: huge, gradeSum: 10 * huge, tokensInput: huge, cost: MAX_IMPORTED_COST } });
    });
    const file = path.join(sandbox.root, 'extreme.ndjson');
    fs.writeFileSync(file, `${forged.join('\n')}\n`);
    const target = path.join(sandbox.root, 'extreme.lmdb');
    const imported = runCli(sandbox, ['import', file, '--db', target]);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    const json = runCli(sandbox, ['recommend', '--project', project, '--json', '--db', target]);
    expect(json.code).toBe(0);
    const answer = JSON.parse(json.stdout) as { roles: { pick?: { score: number; interval: number[] } }[] };
    const pick = answer.roles[0]?.pick;
    expect(pick).toBeDefined();
    for (const value of [pick!.score, ...pick!.interval]) expect(value >= 0 && value <= 100).toBe(true);
    const scores = JSON.stringify(answer);
    expect(scores).not.toMatch(/NaN|Infinity|null,"n"|e\+[1-9]\d\d/);
    const plain = runCli(sandbox, ['recommend', '--project', project, '--db', target]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toMatch(/NaN|Infinity|e\+[1-9]\d\d/);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an agent with XP 1e300 (its next XP would level up forever)', { xp: 1e300 }, /agents field "xp"/],
    ['an agent with CS 1e300', { cs: 1e300 }, /agents field "cs" must be from 0 to/],
    ['a halted agent with SP 1000', { sp: 1000, halted: true }, /"sp" is 1000 on a halted agent/],
  ])('refuses %s in one line and writes nothing', (_name, forged, expected) => {
    const text = exportOf((tracker) => {
      tracker.service.noteModelRequest('s1', 'build', 'fake/model');
      tracker.service.recordToolCall('s1', 'c1', 'bash', true);
    });
    const lines = text.trimEnd().split('\n');
    const agentLine = lines.findIndex((line) => line.startsWith('{"kind":"agents"'));
    const record = JSON.parse(lines[agentLine] as string) as { value: Record<string, unknown> };
    lines[agentLine] = JSON.stringify({ ...record, value: { ...record.value, ...forged } });
    const file = path.join(sandbox.root, 'forged.ndjson');
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const target = path.join(sandbox.root, `forged-${Object.keys(forged).join('-')}.lmdb`);
    const result = runCli(sandbox, ['import', file, '--db', target]);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(true);
    expect(result.stderr).toMatch(expected);
    expect(JSON.parse(runCli(sandbox, ['status', '--json', '--db', target]).stdout)).toEqual({ agents: [] });
  });

  it.each<[string, Record<string, unknown>, RegExp | null]>([
    ['more turns by kind of task than turns worked', { turns: 2, turnsDocs: 3 }, /sessions fields turnsBugFix, .* count 3 turns together; the record worked only 2/],
    ['a fractional count of a kind', { turns: 2, turnsTests: 1.5 }, /sessions field "turnsTests" must be a whole number/],
    ['turns by kind within the turns', { turns: 3, turnsBugFix: 2, turnsDocs: 1 }, null],
  ])('task kinds: %s', (_name, forged, expected) => {
    const text = exportOf((tracker) => {
      tracker.service.noteModelRequest('s1', 'build', 'fake/model');
      tracker.service.recordToolCall('s1', 'c1', 'bash', true);
    });
    const lines = text.trimEnd().split('\n');
    const sessionLine = lines.findIndex((line) => line.startsWith('{"kind":"sessions"'));
    const record = JSON.parse(lines[sessionLine] as string) as { value: Record<string, unknown> };
    lines[sessionLine] = JSON.stringify({ ...record, value: { ...record.value, ...forged } });
    const file = path.join(sandbox.root, 'kinds.ndjson');
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const target = path.join(sandbox.root, `kinds-${Object.entries(forged).flat().join('-')}.lmdb`);
    const result = runCli(sandbox, ['import', file, '--db', target]);
    if (expected === null) {
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const exported = runCli(sandbox, ['export', '--db', target]).stdout;
      expect(exported).toContain('"turnsBugFix":2');
      expect(exported).toContain('"turnsDocs":1');
      return;
    }
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(true);
    expect(result.stderr).toMatch(expected);
    expect(JSON.parse(runCli(sandbox, ['status', '--json', '--db', target]).stdout)).toEqual({ agents: [] });
  });
});
