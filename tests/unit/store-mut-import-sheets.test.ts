/**
 * The agent sheet an import writes when the file and the database both hold a sheet of the agent
 * (import-sheets.ts counts each side's work, src/core/pooled-sheet.ts decides), driven in-process:
 * two temporary databases, work recorded into each through the tracking service, the export of one
 * imported into the other. Expected sheets come from the work recorded here and the sheets each
 * machine showed before the import, never from the pooling code.
 */
import { describe, expect, it } from '@jest/globals';
import { agentOfRecord } from '../../src/core/store/import-sheets.js';
import type { AgentRecord } from '../../src/core/types.js';
import { machine, PROJECT } from '../helpers/machine.js';
import type { Machine, TurnWork } from '../helpers/machine.js';

/** A new agent's CS (DESIGN.md: scoring rules); no test here takes CS near its cap (SP x 100). */
const INITIAL_CS = 60;

const laptopAt = '2025-03-01T09:00:00.000Z';
const desktopAt = '2025-03-02T09:00:00.000Z';

/** What a machine's work adds to a sheet, counted from the turns recorded (grades: from the sheet's CS). */
function workOf(turns: readonly TurnWork[], agent: string) {
  const mine = turns.filter((turn) => turn.agent === agent);
  return { bugs: mine.reduce((sum, turn) => sum + (turn.bugs ?? 0), 0), credited: mine.reduce((sum, turn) => sum + turn.commits, 0) };
}

function record(on: Machine, turns: readonly TurnWork[]): void {
  for (const turn of turns) on.work(turn);
}

/** The sheet the pooling writes when `further` keeps its standing and `other` brings `work` of its own. */
function pooledFrom(further: AgentRecord, other: AgentRecord, work: { bugs: number; credited: number; csDelta: number }): AgentRecord {
  const sp = further.sp - work.bugs;
  return {
    ...further,
    sp,
    bugs: further.bugs + work.bugs,
    commits: further.commits + work.credited,
    cs: further.cs + work.csDelta,
    halted: further.halted || sp <= 0,
    createdAt: further.createdAt < other.createdAt ? further.createdAt : other.createdAt,
    updatedAt: further.updatedAt > other.updatedAt ? further.updatedAt : other.updatedAt,
    pooledStanding: true,
  };
}

/** The export with the first line `matches` picks written twice (and the end line's count raised). */
function withLineTwice(text: string, matches: (line: string) => boolean): string {
  const lines = text.trimEnd().split('\n');
  const at = lines.findIndex(matches);
  expect(at).toBeGreaterThan(0);
  lines.splice(at, 0, lines[at] as string);
  const end = JSON.parse(lines[lines.length - 1] as string) as { kind: string; records: number };
  lines[lines.length - 1] = JSON.stringify({ ...end, records: end.records + 1 });
  return `${lines.join('\n')}\n`;
}

const isLine = (kind: string, agent: string) => (line: string) => {
  const parsed = JSON.parse(line) as { kind: string; key: unknown };
  return parsed.kind === kind && (kind === 'agents' ? parsed.key === agent : Array.isArray(parsed.key) && parsed.key.includes(agent));
};

describe('two machines where the agent worked apart (parallel work)', () => {
  // The laptop levels further (SP 3 after one bug); the desktop's two bugs in one session leave it at SP 2.
  const LAPTOP: TurnWork[] = [{ agent: 'build', toolCalls: 60, commits: 3, merges: 1, bugs: 1, grades: [5, 2] }];
  const DESKTOP: TurnWork[] = [
    { agent: 'build', toolCalls: 30, commits: 2, merges: 1, bugs: 2, grades: [2, 1] },
    { agent: 'plan', toolCalls: 5, commits: 1 },
  ];

  function twoMachines() {
    const laptop = machine('laptop', laptopAt);
    const desktop = machine('desktop', desktopAt);
    record(laptop, LAPTOP);
    record(desktop, DESKTOP);
    return { laptop, desktop, before: { laptop: laptop.sheet('build'), desktop: desktop.sheet('build'), plan: desktop.sheet('plan') } };
  }

  it("charges the desktop's bugs, credited commits and grades on the laptop's standing, whichever imports which", () => {
    const { laptop, desktop, before } = twoMachines();
    const desktopWork = { ...workOf(DESKTOP, 'build'), csDelta: before.desktop.cs - INITIAL_CS };
    // What the desktop's sheet shows is what it recorded: merges earned nothing, each bug cost SP 1.
    expect([before.desktop.commits, before.desktop.bugs, desktopWork.csDelta]).toEqual([2, 2, 2 * (2 + 1)]);
    expect([before.laptop.sp, before.desktop.sp, before.laptop.halted, before.desktop.halted]).toEqual([3, 2, false, false]);
    const laptopFile = laptop.exportText();
    const desktopFile = desktop.exportText();

    const intoDesktop = desktop.importText(laptopFile);
    const intoLaptop = laptop.importText(desktopFile);

    const expected = pooledFrom(before.laptop, before.desktop, desktopWork);
    expect(expected).toMatchObject({ sp: 1, bugs: 3, commits: 5, halted: false, createdAt: laptopAt, pooledStanding: true });
    expect(desktop.sheet('build')).toEqual(expected);
    expect(laptop.sheet('build')).toEqual(expected);
    expect([intoDesktop.pooledSheets, intoLaptop.pooledSheets]).toEqual([['build'], ['build']]);
    // `plan` worked on the desktop only: its sheet travels as it is.
    expect(laptop.sheet('plan')).toEqual(before.plan);
    expect(desktop.sheet('plan')).toEqual(before.plan);
  });

  it('counts a record the file holds twice once', () => {
    const { laptop, desktop, before } = twoMachines();
    const desktopWork = { ...workOf(DESKTOP, 'build'), csDelta: before.desktop.cs - INITIAL_CS };
    // The laptop's session (its bug) and the desktop's `plan` sheet, each on two lines of the file.
    const laptopFile = withLineTwice(laptop.exportText(), isLine('sessions', 'build'));
    const desktopFile = withLineTwice(desktop.exportText(), isLine('agents', 'plan'));

    const intoDesktop = desktop.importText(laptopFile);
    const intoLaptop = laptop.importText(desktopFile);

    const expected = pooledFrom(before.laptop, before.desktop, desktopWork);
    expect(desktop.sheet('build')).toEqual(expected);
    expect(laptop.sheet('build')).toEqual(expected);
    expect(laptop.sheet('plan')).toEqual(before.plan);
    expect([intoDesktop.pooledSheets, intoLaptop.pooledSheets]).toEqual([['build'], ['build']]);
  });

  it('changes nothing when the pooled export goes back to the machine it came from, or the same file comes again', () => {
    const { laptop, desktop } = twoMachines();
    const laptopFile = laptop.exportText();
    desktop.importText(laptopFile);
    const pooled = desktop.sheet('build');

    // The desktop's export holds every record of the laptop: the laptop takes the pooled sheet as it is.
    expect(laptop.importText(desktop.exportText()).pooledSheets).toEqual(['build']);
    expect(laptop.sheet('build')).toEqual(pooled);
    const again = laptop.importText(desktop.exportText());
    expect([again.added, again.pooledSheets]).toEqual([0, []]);
    const twice = desktop.importText(laptopFile);
    expect([twice.added, twice.pooledSheets]).toEqual([0, []]);
    expect(desktop.sheet('build')).toEqual(pooled);
    expect(laptop.sheet('build')).toEqual(pooled);
  });
});

describe('a machine that holds all the other has of the agent (nested work)', () => {
  const FIRST: TurnWork = { agent: 'build', toolCalls: 30, commits: 2, merges: 1, grades: [2, 1] };

  /** The desktop starts as a copy of the laptop's work (an import into an empty database: no pooling). */
  function catchUp() {
    const laptop = machine('laptop', laptopAt);
    const desktop = machine('desktop', desktopAt);
    laptop.work(FIRST);
    const first = desktop.importText(laptop.exportText());
    expect(first.pooledSheets).toEqual([]);
    expect(desktop.sheet('build')).toEqual(laptop.sheet('build'));
    return { laptop, desktop };
  }

  it('takes the sheet of the machine that went on working as it is, when that sheet came further', () => {
    const { laptop, desktop } = catchUp();
    laptop.work({ agent: 'build', toolCalls: 10, commits: 1 });
    const further = laptop.sheet('build');
    expect(further.xp).toBeGreaterThan(desktop.sheet('build').xp);

    const result = desktop.importText(laptop.exportText());

    expect(result.pooledSheets).toEqual(['build']);
    expect(desktop.sheet('build')).toEqual(further);
  });

  it("takes that sheet as it is even when the database's own older sheet stands higher (a bug since)", () => {
    const { laptop, desktop } = catchUp();
    laptop.work({ agent: 'build', toolCalls: 20, commits: 1, bugs: 1 });
    const older = desktop.sheet('build');
    const newer = laptop.sheet('build');
    // The bug took the laptop's SP back to where the desktop's copy stands, with less XP left after a level.
    expect([newer.sp, newer.bugs]).toEqual([older.sp, older.bugs + 1]);
    expect(newer.xp).toBeLessThan(older.xp);

    const result = desktop.importText(laptop.exportText());

    expect(result.pooledSheets).toEqual(['build']);
    expect(desktop.sheet('build')).toEqual(newer);
  });

  it('changes nothing when the same file comes again, or a file older than what the database has', () => {
    const { laptop, desktop } = catchUp();
    const older = laptop.exportText();
    // A bug on the desktop since: its sheet now stands lower than the file's, whose work it all holds.
    desktop.work({ agent: 'build', toolCalls: 0, commits: 0, bugs: 1 });
    const held = desktop.sheet('build');
    expect(held.sp).toBeLessThan(laptop.sheet('build').sp);

    const again = desktop.importText(older);

    expect([again.added, again.pooledSheets]).toEqual([0, []]);
    expect(desktop.sheet('build')).toEqual(held);
  });

  it("answers the same for two agents, each by its own records (one agent's journal is not the other's)", () => {
    const laptop = machine('laptop', laptopAt);
    const desktop = machine('desktop', desktopAt);
    record(laptop, [FIRST, { agent: 'plan', toolCalls: 12, commits: 0 }]);
    desktop.importText(laptop.exportText());
    record(laptop, [
      { agent: 'build', toolCalls: 10, commits: 1 },
      { agent: 'plan', toolCalls: 10, commits: 0 },
    ]);
    // The desktop's own work since is one journal entry of `build` (sorted before `plan`).
    desktop.service.logActivity({ agent: 'build', project: PROJECT, task: 'reviewed the release notes' });
    expect(desktop.service.flush('test').ok).toBe(true);
    const copy = { build: desktop.sheet('build'), plan: desktop.sheet('plan') };
    const further = { build: laptop.sheet('build'), plan: laptop.sheet('plan') };

    const result = desktop.importText(laptop.exportText());

    expect(result.pooledSheets).toEqual(['build', 'plan']);
    // `build`: both machines hold work of their own, pooled on the laptop's standing (nothing to charge).
    expect(desktop.sheet('build')).toEqual(pooledFrom(further.build, copy.build, { bugs: 0, credited: 0, csDelta: 0 }));
    // `plan`: everything the desktop holds of it, the laptop holds too.
    expect(desktop.sheet('plan')).toEqual(further.plan);
  });
});

describe('records keyed by the agent count as work of their own', () => {
  /** The laptop goes on working after the desktop imported it; `since` is the desktop's own work since. */
  function withDesktopWork(since: (desktop: Machine, first: string) => void) {
    const laptop = machine('laptop', laptopAt);
    const desktop = machine('desktop', desktopAt);
    const [first] = laptop.work({ agent: 'build', toolCalls: 30, commits: 2, grades: [2, 1] });
    desktop.importText(laptop.exportText());
    laptop.work({ agent: 'build', toolCalls: 10, commits: 1 });
    since(desktop, first?.hash as string);
    const copy = desktop.sheet('build');
    const further = laptop.sheet('build');
    expect(further.xp).toBeGreaterThan(copy.xp);
    const result = desktop.importText(laptop.exportText());
    return { result, pooled: desktop.sheet('build'), expected: pooledFrom(further, copy, { bugs: 0, credited: 0, csDelta: 0 }) };
  }

  it('a journal entry: the sheet says its standing was pooled', () => {
    const { result, pooled, expected } = withDesktopWork((desktop) => {
      desktop.service.logActivity({ agent: 'build', project: PROJECT, task: 'reviewed the release notes' });
      expect(desktop.service.flush('test').ok).toBe(true);
    });
    expect(result.pooledSheets).toEqual(['build']);
    expect(pooled).toEqual(expected);
  });

  it("a grade event: the user's corrected grade of a commit both machines hold", () => {
    const { result, pooled, expected } = withDesktopWork((desktop, commit) => {
      desktop.service.gradeAsUser({ project: PROJECT, commit, grade: 2, via: 'cli', replace: true });
      // The correction rewrote the user grade and the usage record both hold; only its grade event is new.
      expect([...desktop.store.tables.gradeEvents.getRange()].filter(({ value }) => value.commit === commit)).toHaveLength(3);
    });
    expect(result.pooledSheets).toEqual(['build']);
    expect(pooled).toEqual(expected);
  });
});

describe('a halted sheet', () => {
  it('stays halted whatever the other machine stands at, and takes its bugs and commits (both directions)', () => {
    const laptop = machine('laptop', laptopAt);
    const desktop = machine('desktop', desktopAt);
    const HALTING: TurnWork[] = [{ agent: 'build', toolCalls: 5, commits: 0, bugs: 1 }];
    const WORKING: TurnWork[] = [{ agent: 'build', toolCalls: 30, commits: 2, bugs: 1 }];
    record(laptop, HALTING);
    record(desktop, WORKING);
    const halted = laptop.sheet('build');
    const working = desktop.sheet('build');
    expect([halted.halted, working.halted]).toEqual([true, false]);
    expect(working.sp).toBeGreaterThan(halted.sp);
    const [laptopFile, desktopFile] = [laptop.exportText(), desktop.exportText()];

    laptop.importText(desktopFile);
    desktop.importText(laptopFile);

    const expected = pooledFrom(halted, working, { ...workOf(WORKING, 'build'), csDelta: 0 });
    expect(expected).toMatchObject({ halted: true, sp: halted.sp - 1, bugs: 2, commits: 2 });
    expect(laptop.sheet('build')).toEqual(expected);
    expect(desktop.sheet('build')).toEqual(expected);
  });

  it("is what the other machine's bugs make of the sheet that came further, at SP 0", () => {
    const laptop = machine('laptop', laptopAt);
    const desktop = machine('desktop', desktopAt);
    record(laptop, [{ agent: 'build', toolCalls: 30, commits: 0 }]);
    const DESKTOP: TurnWork[] = [{ agent: 'build', toolCalls: 100, commits: 0, bugs: 3 }];
    record(desktop, DESKTOP);
    const further = laptop.sheet('build');
    const other = desktop.sheet('build');
    expect([further.sp, other.sp, other.halted]).toEqual([3, 2, false]);

    desktop.importText(laptop.exportText());

    expect(desktop.sheet('build')).toEqual(pooledFrom(further, other, { ...workOf(DESKTOP, 'build'), csDelta: 0 }));
    expect(desktop.sheet('build')).toMatchObject({ sp: 0, halted: true, bugs: 3 });
  });
});

describe('the agent a history record is about', () => {
  it('is the usage record key\'s agent, a journal key\'s first part, a commit\'s or user grade\'s `agent`, and none for projects and sheets', () => {
    expect(agentOfRecord({ table: 'sessions', key: ['ses_1', 'build', 'p/m'], value: {} })).toBe('build');
    for (const table of ['communication', 'retrospectives', 'activities'] as const) expect(agentOfRecord({ table, key: ['plan', '2025-03-01T09:00:00.000Z'], value: {} })).toBe('plan');
    for (const table of ['commits', 'userGrades'] as const) expect(agentOfRecord({ table, key: [PROJECT, 'abc1234'], value: { agent: 'build' } })).toBe('build');
    expect(agentOfRecord({ table: 'projects', key: PROJECT, value: { agent: 'build' } })).toBeUndefined();
    expect(agentOfRecord({ table: 'agents', key: 'build', value: { id: 'build' } })).toBeUndefined();
  });

  it('is none for a record whose key or value does not name one', () => {
    expect(agentOfRecord({ table: 'sessions', key: 'ses_1', value: {} })).toBeUndefined();
    expect(agentOfRecord({ table: 'sessions', key: ['ses_1', 7], value: {} })).toBeUndefined();
    expect(agentOfRecord({ table: 'activities', key: 'plan', value: {} })).toBeUndefined();
    expect(agentOfRecord({ table: 'activities', key: [7, 'plan'], value: {} })).toBeUndefined();
    expect(agentOfRecord({ table: 'commits', key: [PROJECT, 'abc1234'], value: null })).toBeUndefined();
    expect(agentOfRecord({ table: 'userGrades', key: [PROJECT, 'abc1234'], value: undefined })).toBeUndefined();
    expect(agentOfRecord({ table: 'commits', key: [PROJECT, 'abc1234'], value: { agent: 7 } })).toBeUndefined();
  });
});
