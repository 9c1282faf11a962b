/**
 * The rule that pools two databases' sheets of one agent at import (src/core/pooled-sheet.ts), on sheets
 * and work written here: nested work takes the fuller sheet as it is; parallel work counts both sides'
 * bugs, credited commits and CS, keeps the standing of the sheet that came furthest and says so; and
 * the answer never depends on which side is the importer.
 */
import { describe, expect, it } from '@jest/globals';
import { poolSheets } from '../../src/core/pooled-sheet.js';
import type { SheetSide, SheetWork } from '../../src/core/pooled-sheet.js';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import type { AgentRecord } from '../../src/core/types.js';

const rules = DEFAULT_RULES;

function sheet(overrides: Partial<AgentRecord>): AgentRecord {
  return { id: 'build', sp: 1, xp: 0, cs: 60, commits: 0, bugs: 0, halted: false, createdAt: '2025-03-01T09:00:00.000Z', updatedAt: '2025-03-01T09:00:00.000Z', ...overrides };
}

function work(overrides: Partial<SheetWork> = {}): SheetWork {
  return { records: 0, bugs: 0, creditedCommits: 0, csDelta: 0, ...overrides };
}

function side(record: AgentRecord, records: number, own: SheetWork): SheetSide {
  return { sheet: record, records, own };
}

describe('pooling two sheets of one agent', () => {
  const laptop = sheet({ sp: 4, xp: 12, cs: 90, commits: 7, bugs: 1, updatedAt: '2025-03-05T09:00:00.000Z' });
  const desktop = sheet({ sp: 2, xp: 3, cs: 70, commits: 2, bugs: 1, createdAt: '2025-02-20T09:00:00.000Z', updatedAt: '2025-03-04T09:00:00.000Z' });

  it('takes the fuller sheet as it is when the other side holds nothing of its own (the same file again, a catch-up import)', () => {
    const fuller = side(laptop, 12, work({ records: 4, bugs: 1, creditedCommits: 2, csDelta: 7 }));
    const contained = side(desktop, 8, work());
    expect(poolSheets(fuller, contained, rules)).toEqual(laptop);
    expect(poolSheets(contained, fuller, rules)).toEqual(laptop);
    // The contained side's sheet wins when it is the fuller one in records, whatever its standing.
    expect(poolSheets(side(laptop, 8, work()), side(desktop, 12, work({ records: 4 })), rules)).toEqual(desktop);
  });

  it('counts the bugs, credited commits and CS of the other side\'s own work on the sheet that came furthest, and says the levels are one side\'s', () => {
    const desktopOwn = work({ records: 9, bugs: 1, creditedCommits: 2, csDelta: 10 });
    const pooled = poolSheets(side(laptop, 14, work({ records: 14, bugs: 1, creditedCommits: 7, csDelta: 30 })), side(desktop, 9, desktopOwn), rules);
    expect(pooled).toEqual({
      ...laptop,
      sp: laptop.sp - desktopOwn.bugs,
      bugs: laptop.bugs + desktopOwn.bugs,
      commits: laptop.commits + desktopOwn.creditedCommits,
      cs: laptop.cs + desktopOwn.csDelta,
      createdAt: desktop.createdAt,
      updatedAt: laptop.updatedAt,
      pooledStanding: true,
    });
  });

  it('gives the same sheet whichever side imports the other', () => {
    const cases: [SheetSide, SheetSide][] = [
      [side(laptop, 14, work({ records: 14, bugs: 1, creditedCommits: 7, csDelta: 30 })), side(desktop, 9, work({ records: 9, bugs: 1, creditedCommits: 2, csDelta: 10 }))],
      // Equal standings: the own work decides, so both orders still agree.
      [side(sheet({ sp: 2 }), 3, work({ records: 3, bugs: 1 })), side(sheet({ sp: 2 }), 5, work({ records: 5, creditedCommits: 1 }))],
      [side(sheet({ sp: 0, halted: true, bugs: 1 }), 2, work({ records: 2, bugs: 1 })), side(sheet({ sp: 1 }), 2, work({ records: 2 }))],
      [side(laptop, 3, work()), side(laptop, 3, work())],
    ];
    for (const [a, b] of cases) expect(poolSheets(a, b, rules)).toEqual(poolSheets(b, a, rules));
  });

  it('halts the agent when the other side\'s bugs take SP to 0, as those bug reports would have', () => {
    const own = work({ records: 4, bugs: 2 });
    const pooled = poolSheets(side(sheet({ sp: 2, xp: 5 }), 3, work({ records: 3 })), side(sheet({ sp: 1, bugs: 2 }), 4, own), rules);
    expect(pooled).toMatchObject({ sp: 2 - own.bugs, bugs: own.bugs, halted: true, xp: 5 });
  });

  it('keeps a halt whatever the other side came to: only the user\'s revive lifts it, never an import', () => {
    const halted = sheet({ sp: 0, halted: true, bugs: 1, cs: 40 });
    const working = sheet({ sp: 5, xp: 30, cs: 95 });
    const workingOwn = work({ records: 6, bugs: 1, csDelta: 8 });
    const pooled = poolSheets(side(halted, 3, work({ records: 3, bugs: 1 })), side(working, 6, workingOwn), rules);
    expect(pooled).toMatchObject({ halted: true, sp: halted.sp - workingOwn.bugs, xp: halted.xp, bugs: halted.bugs + workingOwn.bugs, pooledStanding: true });
  });

  it('bounds the added CS as a grade is: at 0 and at SP x 100', () => {
    const further = sheet({ sp: 1, xp: 8, cs: 95 });
    const gains = poolSheets(side(further, 2, work({ records: 2 })), side(sheet({ sp: 1, xp: 2 }), 3, work({ records: 3, csDelta: 25 })), rules);
    expect(gains.cs).toBe(further.sp * rules.csCapPerSp);
    const losses = poolSheets(side(sheet({ sp: 1, cs: 10 }), 2, work({ records: 2, csDelta: -20 })), side(sheet({ sp: 2, cs: 5 }), 2, work({ records: 2, csDelta: -3 })), rules);
    expect(losses.cs).toBe(0);
  });

  it('pools a sheet without records beside it (an old database) as parallel work: nothing of it is taken for contained', () => {
    const legacy = sheet({ sp: 6, xp: 40, cs: 120, commits: 30, bugs: 2 });
    const pooled = poolSheets(side(legacy, 0, work()), side(desktop, 9, work({ records: 9, bugs: 1, creditedCommits: 2, csDelta: 10 })), rules);
    expect(pooled).toMatchObject({ sp: legacy.sp - 1, xp: legacy.xp, bugs: legacy.bugs + 1, commits: legacy.commits + 2, cs: legacy.cs + 10, pooledStanding: true });
  });
});
