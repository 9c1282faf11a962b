/**
 * One agent's sheet when `agent-tracker import` pools two databases that both hold a sheet of it (two
 * machines where the agent worked). Pure: the import counts the work, this decides the sheet.
 *
 * What can be pooled is pooled; what cannot is said so:
 * - Nested work: when every record of the agent one database holds is also in the other (an import
 *   into a database that only ever imported from this one, the same file twice, a file older than
 *   what the database already has), the fuller database's sheet is the answer, as it is.
 * - Parallel work (each holds records of the agent the other lacks): the counts the records hold are
 *   pooled exactly, so the sheet and `report` give one answer: every bug the other database's own
 *   records charged costs SP 1 (a halt at SP 0, as live) and is counted, its credited commits are
 *   counted, and its grades' CS moves are added (bounded as a grade is). Levels are path-dependent
 *   (each costs 10 x the SP it starts from, and bugs interleave with them) and the records keep no XP
 *   per session, so the rules cannot replay them: SP and XP are those of the sheet that came furthest
 *   (the higher SP, then XP), and the sheet carries `pooledStanding` to say that XP earned on the
 *   other machine is not in it. A halted sheet goes first whatever its SP: only the user lifts a halt
 *   (`revive`), never an import, so no file can put a halted agent back to work.
 *
 * The answer depends only on the two sheets and the two sides' work, never on which side imports
 * which: A into B and B into A give the same sheet. Importing the same file again finds its work
 * nested in the database's and changes nothing.
 */
import { boundedCs, HALT_AT_SP } from './rules.js';
import type { ScoringRules } from './rules.js';
import type { AgentRecord } from './types.js';

/** What one side's records of the agent add to a sheet. */
export interface SheetWork {
  /** Records of the agent: usage records, commits, grades, retrospectives, journal entries. */
  records: number;
  /** Bug reports charged (the usage records' `bugs`). */
  bugs: number;
  /** Commits that earned credit (commit records without `noCredit`). */
  creditedCommits: number;
  /** CS moved by grades (the usage records' `csDelta`). */
  csDelta: number;
}

/** One database's side of the pooling: its sheet, all its records of the agent, and those the other side lacks. */
export interface SheetSide {
  sheet: AgentRecord;
  /** How many records of the agent the side holds. */
  records: number;
  /** Its records the other side does not hold (compared by key), and what they add. */
  own: SheetWork;
}

/** No work of its own: everything the side holds of the agent, the other holds too. */
function nested(side: SheetSide): boolean {
  return side.records > 0 && side.own.records === 0;
}

/**
 * What orders two sides, the one whose standing the pooled sheet keeps first: a halt (it holds until the
 * user revives), then the higher SP, XP and CS, then the rest of the sheet and the own work, so that
 * only sides that pool to the same sheet compare equal.
 */
function rank(side: SheetSide): number[] {
  const { sheet, own } = side;
  return [sheet.halted ? 1 : 0, sheet.sp, sheet.xp, sheet.cs, -sheet.bugs, sheet.commits, sheet.pooledStanding ? 1 : 0, own.records, own.bugs, own.creditedCommits, own.csDelta];
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i += 1) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** The side whose standing is kept (see `rank`), then the other. */
function ordered(a: SheetSide, b: SheetSide): [SheetSide, SheetSide] {
  return compareRanks(rank(a), rank(b)) >= 0 ? [a, b] : [b, a];
}

function earlier(a: string, b: string): string {
  return a <= b ? a : b;
}

function later(a: string, b: string): string {
  return a >= b ? a : b;
}

/** The agent's sheet once both sides' records are in one database (see the module comment for the rule). */
export function poolSheets(a: SheetSide, b: SheetSide, rules: ScoringRules): AgentRecord {
  const [further, other] = ordered(a, b);
  if (nested(other)) return { ...further.sheet };
  if (nested(further)) return { ...other.sheet };
  const pooled: AgentRecord = { ...further.sheet };
  const work = other.own;
  // Each grade was bounded where it was given; the sum is bounded once more by the sheet it joins.
  pooled.cs = boundedCs(pooled.cs, work.csDelta, pooled.sp, rules);
  pooled.commits += work.creditedCommits;
  if (work.bugs > 0) {
    // As `work.bugs` bug reports would: SP -1 and bugs +1 each, halted at the halt line.
    pooled.sp -= work.bugs;
    pooled.bugs += work.bugs;
    if (pooled.sp <= HALT_AT_SP) pooled.halted = true;
  }
  pooled.createdAt = earlier(a.sheet.createdAt, b.sheet.createdAt);
  pooled.updatedAt = later(a.sheet.updatedAt, b.sheet.updatedAt);
  pooled.pooledStanding = true;
  return pooled;
}
