/**
 * The player sheet: fits 60 columns with one-column characters whatever the name and numbers,
 * draws the XP bar honestly, and shows tier, halt state and pending changes. No snapshots: the
 * expectations come from the rules, from figlet itself and from an independent width check.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import figlet from 'figlet';
import cybermedium from 'figlet/fonts/Cybermedium';
import { parsePorcelainStatus, readWorkingTreeChanges, workingTreeStatusArgs } from '../../src/core/projects/git.js';
import type { WorkingTreeChange } from '../../src/core/projects/git.js';
import { nameBanner } from '../../src/core/report/name-banner.js';
import { formatHealthStatus, MAX_LISTED_CHANGES, SHEET_WIDTH, XP_BAR_CELLS } from '../../src/core/report/sheet.js';
import { DEFAULT_RULES, newAgent, toStatus, trustTier } from '../../src/core/rules.js';
import type { AgentRecord, AgentStatus } from '../../src/core/types.js';
import { createStatusSheets } from '../../src/opencode/toast.js';
import { tempTracker } from '../helpers/temp-store.js';

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Terminal columns of one code point, decided independently of the code under test: controls
 * and formatting characters take none or are unprintable, combining marks take none, East Asian
 * wide/fullwidth characters and emoji take two.
 */
function terminalColumns(codePoint: number): number {
  const character = String.fromCodePoint(codePoint);
  if (/[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u.test(character)) return -1;
  if (/[\p{Mn}\p{Me}]/u.test(character)) return 0;
  if (/\p{Extended_Pictographic}/u.test(character) && codePoint > 0xff) return 2;
  const wide =
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f000 && codePoint <= 0x1faff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd);
  return wide ? 2 : 1;
}

function isBoxDrawing(codePoint: number): boolean {
  return codePoint >= 0x2500 && codePoint <= 0x257f;
}

/** Every line fits, and every character takes exactly one column and draws no box. */
function expectFitsTerminal(sheet: string): void {
  for (const line of sheet.split('\n')) {
    const codePoints = [...line].map((character) => character.codePointAt(0) as number);
    const columns = codePoints.reduce((sum, codePoint) => sum + terminalColumns(codePoint), 0);
    expect(columns).toBeLessThanOrEqual(SHEET_WIDTH);
    expect(codePoints.filter((codePoint) => terminalColumns(codePoint) !== 1).map((c) => c.toString(16))).toEqual([]);
    expect(codePoints.filter(isBoxDrawing)).toEqual([]);
  }
}

function agentStatus(overrides: Partial<AgentRecord> = {}): AgentStatus {
  return toStatus({ ...newAgent('build', '2025-01-01T00:00:00.000Z', DEFAULT_RULES), ...overrides }, DEFAULT_RULES);
}

const barLine = (sheet: string): string => {
  const line = sheet.split('\n').find((l) => /\[[#.]+\]/.test(l));
  if (!line) throw new Error(`no XP bar in:\n${sheet}`);
  return line;
};

function readBar(sheet: string): { filled: number; cells: number; percent: number } {
  const line = barLine(sheet);
  const cells = /\[([#.]+)\]/.exec(line)?.[1] ?? '';
  const percent = Number(/(\d+\.\d)%/.exec(line)?.[1]);
  return { filled: cells.replace(/\./g, '').length, cells: cells.length, percent };
}

const names = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ minLength: 30, maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', 'build', 'WWWWWWWWWWWWWW', 'orchestrator-supervisor', '日本語のエージェント', 'café', '👩‍💻 agent', 'a\u0301\u0301\u0301', 'tab\there\nnewline'),
);

const stat = fc.oneof(fc.integer({ min: -5, max: 1_000_000 }), fc.double({ min: -1e6, max: 1e15, noNaN: true }));

const records = fc.record({
  id: names,
  sp: stat,
  xp: stat,
  cs: stat,
  commits: stat,
  bugs: stat,
  halted: fc.boolean(),
  createdAt: fc.constant(''),
  updatedAt: fc.constant(''),
});

const changes = fc.array(
  fc.record({ code: fc.constantFrom(' M', 'M ', 'A ', '??', 'R ', ' D', 'UU'), path: fc.oneof(fc.string({ maxLength: 120 }), fc.string({ unit: 'binary', maxLength: 80 })) }),
  { maxLength: 12 },
);

describe('the player sheet layout', () => {
  it('keeps every line within 60 one-column characters for any name and any numbers', () => {
    fc.assert(
      fc.property(records, fc.option(changes, { nil: undefined }), (record, pending) => {
        const sheet = formatHealthStatus(toStatus(record, DEFAULT_RULES), pending ? { pendingChanges: pending } : {});
        expectFitsTerminal(sheet);
      }),
      { numRuns: 400 },
    );
  });

  it('still renders the one-argument form used by the CLI and the tool', () => {
    const sheet = formatHealthStatus(agentStatus());
    expect(sheet).toContain('PROBATION');
    expect(sheet).not.toContain('PENDING');
  });

  it('draws a short ASCII name in Cybermedium exactly as figlet does', () => {
    figlet.parseFont('Cybermedium', cybermedium);
    for (const name of ['build', 'plan', 'general', 'reviewer']) {
      const expected = figlet
        .textSync(name, { font: 'Cybermedium' })
        .split('\n')
        .map((line) => line.trimEnd())
        .filter((line) => line !== '');
      const sheet = formatHealthStatus(agentStatus({ id: name })).split('\n');
      expect(sheet.slice(0, expected.length)).toEqual(expected);
    }
  });

  it('falls back to a narrower font, then to the plain name cut with "...", when Cybermedium is too wide', () => {
    figlet.parseFont('Cybermedium', cybermedium);
    const wide = 'WWWWWWWWWWW';
    expect(Math.max(...figlet.textSync(wide, { font: 'Cybermedium' }).split('\n').map((l) => l.trimEnd().length))).toBeGreaterThan(SHEET_WIDTH);
    const wideSheet = formatHealthStatus(agentStatus({ id: wide }));
    expectFitsTerminal(wideSheet);
    expect(wideSheet.split('\n').slice(0, 2).every((line) => !line.includes(wide))).toBe(true);

    const long = 'x'.repeat(100);
    const [first] = formatHealthStatus(agentStatus({ id: long })).split('\n');
    expect(first).toBe(`${'x'.repeat(SHEET_WIDTH - 3)}...`);
  });

  it('shows accented names without their accents and other characters as "?"', () => {
    const sheet = formatHealthStatus(agentStatus({ id: 'café 日本' }));
    expect(sheet).toContain(':: cafe ?? ::');
  });
});

describe('the XP bar', () => {
  it('fills as many cells as the share of the level reached, rounded down, and prints that share', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), (sp, share) => {
        const needed = DEFAULT_RULES.xpPerLevelFactor * sp;
        const xp = share * needed;
        const status = agentStatus({ sp, xp });
        const bar = readBar(formatHealthStatus(status));
        const fraction = status.xp / (status.xp + status.xpToLevel);
        expect(bar.cells).toBe(XP_BAR_CELLS);
        expect(bar.filled).toBe(Math.floor(fraction * XP_BAR_CELLS));
        expect(bar.filled).toBeLessThan(XP_BAR_CELLS);
        expect(bar.percent).toBeLessThan(100);
        // One decimal, rounded; only a share that would round up to 100.0% is held at 99.9%.
        if (fraction * 100 >= 99.95 - 1e-6) expect(bar.percent).toBe(99.9);
        else expect(Math.abs(bar.percent - fraction * 100)).toBeLessThanOrEqual(0.05 + 1e-6);
        // The drawn cells never claim more than the printed percentage.
        expect(bar.filled / XP_BAR_CELLS).toBeLessThanOrEqual(bar.percent / 100 + 0.0005);
      }),
      { numRuns: 300 },
    );
  });

  it('does not draw 99.6% as full', () => {
    const sp = 4;
    const needed = DEFAULT_RULES.xpPerLevelFactor * sp;
    const bar = readBar(formatHealthStatus(agentStatus({ sp, xp: needed * 0.996 })));
    expect(bar.percent).toBe(99.6);
    expect(bar.filled).toBe(XP_BAR_CELLS - 1);
  });

  it('is empty at 0 XP and for a halted agent at SP 0', () => {
    expect(readBar(formatHealthStatus(agentStatus({ xp: 0 })))).toMatchObject({ filled: 0, percent: 0 });
    expect(readBar(formatHealthStatus(agentStatus({ sp: 0, xp: 0, halted: true })))).toMatchObject({ filled: 0, percent: 0 });
  });
});

describe('the stats', () => {
  it.each([1, 2, 4, 7, 10])('labels SP %d with its trust tier', (sp) => {
    const sheet = formatHealthStatus(agentStatus({ sp }));
    const header = sheet.split('\n').find((line) => line.startsWith(':: build '));
    expect(header).toMatch(new RegExp(` ${trustTier(sp)} ::$`));
    expect(sheet).toMatch(new RegExp(`SP \\.+ ${sp}\\b`));
  });

  it('gives the five SP levels five different tiers', () => {
    expect(new Set([1, 2, 4, 7, 10].map(trustTier)).size).toBe(5);
  });

  it('shows SP, XP, CS with its label, commits and bugs: whole numbers whole, others with one decimal', () => {
    const status = agentStatus({ sp: 3, xp: 12.25, cs: 87.5, commits: 14, bugs: 2 });
    const sheet = formatHealthStatus(status);
    expect(sheet).toMatch(/SP \.+ 3\s/);
    expect(sheet).toMatch(new RegExp(`XP \\.+ 12\\.3/${status.xp + status.xpToLevel}\\s`));
    expect(sheet).toMatch(/CS \.+ 87\.5/);
    expect(sheet).toMatch(new RegExp(`CS LABEL \\.+ ${status.csLabel}`));
    expect(sheet).toMatch(/COMMITS \.+ 14\s/);
    expect(sheet).toMatch(/BUGS \.+ 2\s/);
    expect(sheet).not.toMatch(/\b\d+\.0\b/);
  });

  it('says YES and explains the halt for a halted agent, "no" otherwise', () => {
    const halted = formatHealthStatus(agentStatus({ sp: 0, bugs: 1, halted: true }));
    expect(halted).toMatch(/HALTED \.+ YES/);
    expect(halted).toContain('>> HALTED');
    const active = formatHealthStatus(agentStatus());
    expect(active).toMatch(/HALTED \.+ no/);
    expect(active).not.toContain('>> HALTED');
  });

  it('says under a sheet an import pooled from two machines that its SP and XP are one machine\'s, within the width', () => {
    const pooled = formatHealthStatus(agentStatus({ sp: 3, pooledStanding: true })).split('\n');
    expect(pooled).toContain("  >> POOLED: SP/XP are one machine's, counts are all");
    expect(Math.max(...pooled.map((line) => line.length))).toBeLessThanOrEqual(SHEET_WIDTH);
    expect(formatHealthStatus(agentStatus({ sp: 3 }))).not.toContain('>> POOLED');
  });
});

describe('pending changes', () => {
  const change = (index: number): WorkingTreeChange => ({ code: index % 2 ? ' M' : '??', path: `src/file-${index}.ts` });

  it('lists at most five changes by path and counts the rest', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), (count) => {
        const pending = Array.from({ length: count }, (_, i) => change(i));
        const lines = formatHealthStatus(agentStatus(), { pendingChanges: pending }).split('\n');
        const listed = lines.filter((line) => /src\/file-\d+\.ts$/.test(line));
        expect(listed).toHaveLength(Math.min(count, MAX_LISTED_CHANGES));
        listed.forEach((line, i) => expect(line).toContain(`${pending[i]?.code} ${pending[i]?.path}`));
        const more = lines.filter((line) => /^\s+\+ \d+ more$/.test(line));
        expect(more).toEqual(count > MAX_LISTED_CHANGES ? [`    + ${count - MAX_LISTED_CHANGES} more`] : []);
        const summary = lines.find((line) => line.includes('PENDING'));
        expect(summary).toMatch(count === 0 ? /PENDING \.+ clean$/ : new RegExp(`PENDING \\.+ ${count} changes?$`));
      }),
    );
  });

  it('keeps the end of a long path', () => {
    const longPath = `${'deep/'.repeat(20)}the-file.ts`;
    const sheet = formatHealthStatus(agentStatus(), { pendingChanges: [{ code: 'A ', path: longPath }] });
    const line = sheet.split('\n').find((l) => l.endsWith('the-file.ts'));
    expect(line).toMatch(/^ {4}A {2}\.\.\.(deep\/)*/);
    expect(line?.length).toBe(SHEET_WIDTH);
  });

  it('parses porcelain status output, renames listing their new path', () => {
    const output = [' M src/a.ts', '?? notes.md', 'R  new name.ts', 'old name.ts', 'A  added.ts', ''].join('\0');
    expect(parsePorcelainStatus(output)).toEqual([
      { code: ' M', path: 'src/a.ts' },
      { code: '??', path: 'notes.md' },
      { code: 'R ', path: 'new name.ts' },
      { code: 'A ', path: 'added.ts' },
    ]);
    expect(parsePorcelainStatus('')).toEqual([]);
    expect(workingTreeStatusArgs()).toEqual(['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=normal', '--ignore-submodules=all']);
  });

  it('reads the changes of a real repository, and nothing outside one', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-sheet-'));
    tempDirs.push(root);
    const repo = path.join(root, 'repo');
    fs.mkdirSync(repo);
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: root, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' };
    const git = (args: string[]) => execFileSync('git', args, { cwd: repo, env, timeout: 30_000 });
    git(['init', '--quiet']);
    fs.writeFileSync(path.join(repo, 'kept.txt'), 'one\n');
    fs.writeFileSync(path.join(repo, 'renamed.txt'), 'two\n');
    git(['add', '-A']);
    git(['commit', '--quiet', '-m', 'initial']);
    fs.writeFileSync(path.join(repo, 'kept.txt'), 'changed\n');
    fs.writeFileSync(path.join(repo, 'new file é.txt'), 'new\n');
    git(['mv', 'renamed.txt', 'moved.txt']);

    const found = await readWorkingTreeChanges(repo);
    expect(found).toEqual(
      expect.arrayContaining([
        { code: ' M', path: 'kept.txt' },
        { code: '??', path: 'new file é.txt' },
        { code: 'R ', path: 'moved.txt' },
      ]),
    );
    expect(found).toHaveLength(3);
    const outside = path.join(root, 'not-a-repo');
    fs.mkdirSync(outside);
    expect(await readWorkingTreeChanges(outside)).toBeUndefined();
  });

  it('leaves the index as it is (no lock taken), so an agent\'s git add at the same moment never finds it locked', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-sheet-'));
    tempDirs.push(root);
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: root, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' };
    const git = (args: string[]) => execFileSync('git', args, { cwd: root, env, timeout: 30_000 });
    git(['init', '--quiet']);
    fs.writeFileSync(path.join(root, 'kept.txt'), 'one\n');
    git(['add', '-A']);
    git(['commit', '--quiet', '-m', 'initial']);
    // A tracked file whose time stamp no longer matches the index: a plain `git status` rewrites the index (under its lock).
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(root, 'kept.txt'), later, later);
    const index = path.join(root, '.git', 'index');
    const before = fs.statSync(index);

    expect(await readWorkingTreeChanges(root)).toEqual([]);
    const after = fs.statSync(index);
    expect({ ino: after.ino, mtimeMs: after.mtimeMs }).toEqual({ ino: before.ino, mtimeMs: before.mtimeMs });
  });
});

describe('the sheet toasts', () => {
  it('loads the renderer and reads pending changes before agent-status runs', async () => {
    const tracker = tempTracker();
    try {
      const repo = path.join(tracker.dir, 'repo');
      fs.mkdirSync(repo);
      execFileSync('git', ['init', '--quiet'], { cwd: repo, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: tracker.dir }, timeout: 30_000 });
      fs.writeFileSync(path.join(repo, 'draft.md'), 'draft\n');
      const client = { tui: { showToast: () => Promise.resolve({ data: true }) } } as unknown as Parameters<typeof createStatusSheets>[0]['client'];
      const sheets = createStatusSheets({ client, service: tracker.service, logger: { info: () => undefined, warn: () => undefined, error: () => undefined }, project: repo });
      const hooks = sheets.wrapHooks({});
      const status = tracker.service.getAgentStatus('build');
      expect(() => sheets.renderStatus(status)).toThrow(/still loading/);
      await hooks['tool.execute.before']({ tool: 'agent-status', sessionID: 's1', callID: 'c1' }, { args: {} });
      const sheet = sheets.renderStatus(status);
      expect(sheet).toBe(formatHealthStatus(status, { pendingChanges: [{ code: '??', path: 'draft.md' }] }));
    } finally {
      tracker.dispose();
    }
  });

  it('never makes a hook wait for a toast, and logs a failing toast once', async () => {
    const tracker = tempTracker();
    try {
      const shown: unknown[] = [];
      let calls = 0;
      const client = {
        tui: {
          showToast: (request: unknown) => {
            calls += 1;
            shown.push(request);
            // The first toast never settles; the later ones fail.
            return calls === 1 ? new Promise(() => undefined) : Promise.reject(new Error('no TUI here'));
          },
        },
      } as unknown as Parameters<typeof createStatusSheets>[0]['client'];
      const sheets = createStatusSheets({ client, service: tracker.service, logger: { info: () => undefined, warn: (m) => tracker.logged.push({ level: 'warn', message: m }), error: () => undefined }, project: tracker.dir });
      const hooks = sheets.wrapHooks({});
      const params = { sessionID: 's1', agent: 'build', model: { providerID: 'p', id: 'm' } } as unknown as Parameters<typeof hooks['chat.params']>[0];
      await hooks['chat.params'](params, {} as never);
      await hooks['chat.params'](params, {} as never);
      sheets.onCommits('build', [], true);
      sheets.onCommits('build', [], true);
      const deadline = Date.now() + 10_000;
      while (calls < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(calls).toBe(3);
      const titles = shown.map((request) => (request as { body: { title: string } }).body.title).sort();
      expect(titles).toEqual(['build: push', 'build: push', 'build: session start']);
      expect(tracker.logged.filter((entry) => entry.level === 'warn')).toHaveLength(1);
    } finally {
      tracker.dispose();
    }
  });
});

describe('a very long agent name', () => {
  it('is shown as plain text cut to the width', () => {
    const lines = nameBanner('x'.repeat(4000), SHEET_WIDTH);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^x+/);
    expect(lines[0]?.length).toBeLessThanOrEqual(SHEET_WIDTH);
  });
});
