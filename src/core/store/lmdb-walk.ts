/**
 * A walk of an LMDB data file's B-trees made with plain file reads, never with lmdb's native code.
 * lmdb trusts every page it reads: a page of noise that a tree points to ends in a signal, in a
 * hang, or worse in an answer with wrong numbers (a branch page that reads as a short leaf). So the
 * check reads every page a tree references and holds it to what LMDB itself guarantees of a sound
 * file: both meta pages sound, each page's own number in its header, the right kind of page at the
 * right depth, nodes inside their page, keys in order and within their parent's range, overflow
 * pages inside the file, no page reached twice, and every count (entries, branch, leaf and
 * overflow pages, depth) equal to what the tree's record says.
 *
 * Two uses: `lmdbTreeProblem` (strict: the first fault is the answer; verify-child.ts runs it
 * before lmdb maps the file) and `readableRecords` (tolerant: every record of every intact leaf,
 * skipping what is damaged; salvage reads records from it without lmdb touching the damaged file).
 * Layout facts are those of the lmdb-js build of LMDB (64-bit page numbers, 24-byte page header),
 * in lmdb-pages.ts with the reader of pages and the meta pages; this file walks the trees.
 */
import {
  DB_RECORD,
  F_BIGDATA,
  F_DUPDATA,
  F_SUBDATA,
  HEADER,
  INVALID_PAGE,
  MAX_DEPTH,
  MDB_DUPSORT,
  MDB_INTEGERKEY,
  MDB_REVERSEKEY,
  META_PAGES,
  NODE_HEADER,
  P_BRANCH,
  P_LEAF,
  P_OVERFLOW,
  P_STATE_BITS,
  PageFault,
  PageFile,
  compareBytes,
  compareIntegers,
  freePagesOf,
  metasOf,
  treeRecord,
} from './lmdb-pages.js';
import type { Meta, ReadableTable, TreeRecord } from './lmdb-pages.js';

interface LeafNode {
  flags: number;
  key: Buffer;
  /** The value's bytes (read from its overflow pages when it lives there). */
  value: Buffer;
}

interface TreeVisit {
  /** The table's name, for the messages. */
  label: string;
  record: TreeRecord;
  onLeafNode(node: LeafNode): void;
  /** Strict: the first fault throws. Tolerant: the fault is noted, with the key range its subtree held, and skipped. */
  onFault?(message: string, lost?: KeyRange): void;
}

/** The keys a subtree may hold: from `low` (inclusive) to `high` (exclusive); undefined is open. */
export interface KeyRange {
  low: Buffer | undefined;
  high: Buffer | undefined;
}

interface Frame {
  pgno: bigint;
  depth: number;
  low: Buffer | undefined;
  high: Buffer | undefined;
}

/** Walks the file's trees from one meta page, remembering every page it has reached. */
class TreeWalker {
  private readonly used: Uint8Array;

  constructor(
    private readonly file: PageFile,
    private readonly meta: Meta,
  ) {
    this.used = new Uint8Array(meta.lastPage + 1);
    for (let page = 0; page < META_PAGES; page += 1) this.used[page] = 1;
  }

  /** Marks `count` pages from `pgno` as reached; a page outside the file or reached before is a fault. */
  private claim(pgno: bigint, count: number, what: string): number {
    if (pgno < BigInt(META_PAGES) || pgno + BigInt(count) - 1n > BigInt(this.meta.lastPage)) throw new PageFault(`${what} points to page ${pgno}, outside the pages in use (2..${this.meta.lastPage})`);
    const first = Number(pgno);
    for (let page = first; page < first + count; page += 1) {
      if (this.used[page]) throw new PageFault(`page ${page} is reached twice (${what})`);
      this.used[page] = 1;
    }
    return first;
  }

  private page(pgno: number): Buffer {
    return this.file.bytes(pgno * this.meta.pageSize, this.meta.pageSize);
  }

  /** Checks a page's header; answers its kind (without state bits) and its node count. */
  private header(page: Buffer, pgno: number, what: string): { kind: number; nodes: number; upper: number } {
    if (page.readBigUInt64LE(0) !== BigInt(pgno)) throw new PageFault(`page ${pgno} (${what}) carries the number of another page: it is not what its tree points to`);
    if (page.readBigUInt64LE(8) > this.meta.txnId) throw new PageFault(`page ${pgno} (${what}) names a write later than the file's last`);
    const kind = page.readUInt16LE(18) & ~P_STATE_BITS;
    const lower = page.readUInt16LE(20);
    const upper = page.readUInt16LE(22);
    if (kind === P_OVERFLOW) return { kind, nodes: 0, upper: 0 };
    if (lower % 2 !== 0 || lower > upper || HEADER + upper > this.meta.pageSize) throw new PageFault(`page ${pgno} (${what}) has impossible free-space bounds`);
    return { kind, nodes: lower / 2, upper };
  }

  /** The key and node of entry `index`, checked to lie inside its page. */
  private node(page: Buffer, pgno: number, index: number, upper: number, what: string): { at: number; flags: number; dataSize: number; key: Buffer } {
    const pointer = page.readUInt16LE(HEADER + 2 * index);
    const at = HEADER + pointer;
    if (pointer < upper || pointer % 2 !== 0 || at + NODE_HEADER > this.meta.pageSize) throw new PageFault(`page ${pgno} (${what}) has a node outside its page`);
    const keySize = page.readUInt16LE(at + 6);
    if (at + NODE_HEADER + keySize > this.meta.pageSize) throw new PageFault(`page ${pgno} (${what}) has a key longer than its page`);
    return { at, flags: page.readUInt16LE(at + 4), dataSize: (page.readUInt16LE(at) | (page.readUInt16LE(at + 2) << 16)) >>> 0, key: page.subarray(at + NODE_HEADER, at + NODE_HEADER + keySize) };
  }

  /** The bytes of a value kept on overflow pages, after checking those pages. */
  private overflow(pgno: bigint, size: number, counts: { overflow: bigint }, what: string): Buffer {
    const needed = Math.floor((HEADER - 1 + size) / this.meta.pageSize) + 1;
    if (pgno < BigInt(META_PAGES) || pgno > BigInt(this.meta.lastPage)) throw new PageFault(`${what} points to overflow page ${pgno}, outside the pages in use`);
    const first = this.page(Number(pgno));
    if (first.readBigUInt64LE(0) !== pgno || (first.readUInt16LE(18) & ~P_STATE_BITS) !== P_OVERFLOW) throw new PageFault(`overflow page ${pgno} (${what}) is not an overflow page`);
    const pages = first.readUInt32LE(20);
    if (pages < needed) throw new PageFault(`overflow page ${pgno} (${what}) is shorter than its value`);
    this.claim(pgno, pages, what);
    counts.overflow += BigInt(pages);
    return this.file.bytes(Number(pgno) * this.meta.pageSize + HEADER, size);
  }

  /**
   * Walks one tree depth-first, keys in order. Strict (no onFault): throws the first fault.
   * Tolerant: a faulty page is noted and skipped with what lies under it; the counts are then not compared.
   */
  walk(visit: TreeVisit): void {
    const { record, label } = visit;
    if (record.root === INVALID_PAGE) {
      if (record.entries !== 0n || record.depth !== 0) this.fault(visit, `the tree of ${label} is empty but says it holds records`);
      return;
    }
    if (record.depth < 1 || record.depth > MAX_DEPTH) return this.fault(visit, `the tree of ${label} names an impossible depth (${record.depth})`);
    if (record.flags & (MDB_DUPSORT | MDB_REVERSEKEY)) return this.fault(visit, `the tree of ${label} has flags this tracker never sets`);
    const compare = record.flags & MDB_INTEGERKEY ? compareIntegers : compareBytes;
    const counts = { branch: 0n, leaf: 0n, overflow: 0n, entries: 0n };
    const stack: Frame[] = [{ pgno: record.root, depth: 1, low: undefined, high: undefined }];
    let faults = 0;
    while (stack.length > 0) {
      const frame = stack.pop() as Frame;
      try {
        this.visitPage(frame, visit, compare, counts, stack);
      } catch (error) {
        if (!(error instanceof PageFault) || !visit.onFault) throw error;
        faults += 1;
        visit.onFault(error.message, { low: frame.low, high: frame.high });
      }
    }
    if (faults > 0) return;
    const expected = [record.branchPages, record.leafPages, record.overflowPages, record.entries];
    const found = [counts.branch, counts.leaf, counts.overflow, counts.entries];
    if (expected.some((count, index) => count !== found[index])) this.fault(visit, `the tree of ${label} holds ${found[3]} records on ${found[0]}/${found[1]}/${found[2]} branch/leaf/overflow pages, its record says ${expected[3]} on ${expected[0]}/${expected[1]}/${expected[2]}`);
  }

  private fault(visit: TreeVisit, message: string): void {
    if (!visit.onFault) throw new PageFault(message);
    visit.onFault(message);
  }

  private visitPage(frame: Frame, visit: TreeVisit, compare: (a: Buffer, b: Buffer) => number, counts: { branch: bigint; leaf: bigint; overflow: bigint; entries: bigint }, stack: Frame[]): void {
    const leafLevel = frame.depth === visit.record.depth;
    const what = `${leafLevel ? 'a leaf' : 'a branch'} of ${visit.label}`;
    const pgno = this.claim(frame.pgno, 1, what);
    const page = this.page(pgno);
    const { kind, nodes, upper } = this.header(page, pgno, what);
    if (kind !== (leafLevel ? P_LEAF : P_BRANCH)) throw new PageFault(`page ${pgno} (${what}) is not a ${leafLevel ? 'leaf' : 'branch'} page`);
    if (nodes < 1 || (!leafLevel && nodes < 2 && frame.depth > 1)) throw new PageFault(`page ${pgno} (${what}) holds too few entries`);
    const keys: Buffer[] = [];
    const children: Frame[] = [];
    for (let index = 0; index < nodes; index += 1) {
      const node = this.node(page, pgno, index, upper, what);
      // A branch's first key is never compared (LMDB leaves it empty); every other key is in order and in range.
      const ordered = leafLevel || index > 0;
      if (ordered) {
        const previous = keys[keys.length - 1];
        if (previous && compare(previous, node.key) >= 0) throw new PageFault(`page ${pgno} (${what}) has keys out of order`);
        if (frame.low && compare(node.key, frame.low) < 0) throw new PageFault(`page ${pgno} (${what}) has a key below its parent's range`);
        if (frame.high && compare(node.key, frame.high) >= 0) throw new PageFault(`page ${pgno} (${what}) has a key above its parent's range`);
        keys.push(node.key);
      }
      if (!leafLevel) {
        const child = BigInt(node.dataSize >>> 0) | (BigInt(node.flags) << 32n);
        children.push({ pgno: child, depth: frame.depth + 1, low: index > 0 ? node.key : frame.low, high: undefined });
        continue;
      }
      if (node.flags & ~(F_BIGDATA | F_SUBDATA) || (node.flags & F_DUPDATA) !== 0) throw new PageFault(`page ${pgno} (${what}) has a record with flags this tracker never sets`);
      let value: Buffer;
      if (node.flags & F_BIGDATA) {
        if (node.at + NODE_HEADER + node.key.length + 8 > this.meta.pageSize) throw new PageFault(`page ${pgno} (${what}) has a record longer than its page`);
        value = this.overflow(page.readBigUInt64LE(node.at + NODE_HEADER + node.key.length), node.dataSize, counts, what);
      } else {
        if (node.at + NODE_HEADER + node.key.length + node.dataSize > this.meta.pageSize) throw new PageFault(`page ${pgno} (${what}) has a record longer than its page`);
        value = page.subarray(node.at + NODE_HEADER + node.key.length, node.at + NODE_HEADER + node.key.length + node.dataSize);
      }
      counts.entries += 1n;
      visit.onLeafNode({ flags: node.flags, key: node.key, value });
    }
    if (leafLevel) counts.leaf += 1n;
    else {
      counts.branch += 1n;
      for (let index = 0; index < children.length; index += 1) (children[index] as Frame).high = children[index + 1]?.low ?? frame.high;
      // Pushed last-first so that the stack gives the children back in key order.
      for (let index = children.length - 1; index >= 0; index -= 1) stack.push(children[index] as Frame);
    }
  }

  /**
   * The records of every page no tree reached and the free list does not name that reads as a
   * sound leaf: the leaves under a damaged branch. Each comes with its page's keys.
   */
  orphanLeaves(free: Set<number>): { pgno: number; nodes: LeafNode[] }[] {
    const found: { pgno: number; nodes: LeafNode[] }[] = [];
    const record: TreeRecord = { flags: 0, depth: 1, branchPages: 0n, leafPages: 0n, overflowPages: 0n, entries: 0n, root: 0n };
    const counts = { branch: 0n, leaf: 0n, overflow: 0n, entries: 0n };
    for (let pgno = META_PAGES; pgno <= this.meta.lastPage; pgno += 1) {
      if (this.used[pgno] || free.has(pgno)) continue;
      const nodes: LeafNode[] = [];
      try {
        this.visitPage({ pgno: BigInt(pgno), depth: 1, low: undefined, high: undefined }, { label: 'no tree', record, onLeafNode: (node) => nodes.push(node) }, compareBytes, counts, []);
        found.push({ pgno, nodes });
      } catch (error) {
        if (!(error instanceof PageFault)) throw error;
      }
    }
    return found;
  }

  /** Checks that each page the free tree lists lies in the file and is used by no tree (a writer would hand it out again). */
  checkFreeList(pages: bigint[]): void {
    const filePages = BigInt(Math.floor(this.file.size / this.meta.pageSize));
    for (const pgno of pages) {
      if (pgno < BigInt(META_PAGES) || pgno >= filePages) throw new PageFault(`the free-page list names page ${pgno}, outside the file`);
      if (pgno <= BigInt(this.meta.lastPage) && this.used[Number(pgno)]) throw new PageFault(`the free-page list names page ${pgno}, which a tree uses`);
    }
  }
}

/**
 * The first fault of the file, or undefined when every page its trees reference is sound and every
 * count adds up. Reads the whole of what is in use (a file of 100,000 records is read in well under
 * a second); never maps the file.
 */
export function lmdbTreeProblem(file: string): string | undefined {
  let pages: PageFile;
  try {
    pages = new PageFile(file);
  } catch (error) {
    return `cannot read it: ${(error as Error).message}`;
  }
  try {
    const { newest, faults } = metasOf(pages);
    if (faults[0]) return faults[0];
    try {
      walkAll(pages, newest, undefined);
    } catch (error) {
      if (error instanceof PageFault && newest.synced) throw new PageFault(`the sync meta in page 0 names the latest write, and from it ${error.message}`);
      throw error;
    }
    return undefined;
  } catch (error) {
    if (error instanceof PageFault) return error.message;
    return `reading it failed: ${(error as Error).message}`;
  } finally {
    pages.close();
  }
}

/** Walks the free tree and the main tree and every table under it. `tolerant` collects what reads. */
function walkAll(pages: PageFile, meta: Meta, tolerant: Map<string, ReadableTable> | undefined): void {
  const walker = new TreeWalker(pages, meta);
  const freePages: bigint[] = [];
  const mainFaults: string[] = [];
  walker.walk({
    label: 'the free-page list',
    record: meta.free,
    onLeafNode: (node) => freePages.push(...freePagesOf(node.value)),
    ...(tolerant ? { onFault: () => undefined } : {}),
  });
  const tables: { name: string; record: TreeRecord }[] = [];
  walker.walk({
    label: 'the table of tables',
    record: meta.main,
    onLeafNode: (node) => {
      if (!(node.flags & F_SUBDATA)) return;
      if (node.value.length !== DB_RECORD) throw new PageFault('the record of a table has the wrong size');
      // lmdb-js stores a table's name with C's closing NUL.
      tables.push({ name: node.key.toString('utf8').replace(/\0$/, ''), record: treeRecord(node.value, 0) });
    },
    ...(tolerant ? { onFault: (message: string) => mainFaults.push(message) } : {}),
  });
  const lostRanges = new Map<string, KeyRange[]>();
  for (const { name, record } of tables) {
    const table: ReadableTable = { records: [], expected: Number(record.entries), faults: [] };
    tolerant?.set(name, table);
    walker.walk({
      label: `table "${name}"`,
      record,
      onLeafNode: (node) => {
        if (tolerant) table.records.push({ key: node.key, value: node.value });
      },
      ...(tolerant
        ? {
            onFault: (message: string, lost?: KeyRange) => {
              table.faults.push(message);
              if (lost && !(record.flags & MDB_INTEGERKEY)) lostRanges.set(name, [...(lostRanges.get(name) ?? []), lost]);
            },
          }
        : {}),
    });
  }
  if (!tolerant) {
    walker.checkFreeList(freePages);
    return;
  }
  if (mainFaults.length > 0) tolerant.set('', { records: [], expected: undefined, faults: mainFaults });
  else if (lostRanges.size > 0) adoptOrphans(walker, freePages, lostRanges, tolerant);
}

/**
 * Gives each sound leaf that no tree reached (the leaves under a damaged branch) to the one damaged
 * table whose lost key range holds all its keys; a leaf that fits several or none is left out. Its
 * records join the table only under keys the tree did not already give.
 */
function adoptOrphans(walker: TreeWalker, freePages: bigint[], lostRanges: Map<string, KeyRange[]>, tables: Map<string, ReadableTable>): void {
  const free = new Set(freePages.map(Number));
  const inRange = (key: Buffer, range: KeyRange): boolean => (!range.low || compareBytes(key, range.low) >= 0) && (!range.high || compareBytes(key, range.high) < 0);
  for (const { nodes } of walker.orphanLeaves(free)) {
    const owners = [...lostRanges].filter(([, ranges]) => nodes.every((node) => ranges.some((range) => inRange(node.key, range))));
    if (owners.length !== 1) continue;
    const table = tables.get((owners[0] as [string, KeyRange[]])[0]);
    if (!table) continue;
    const known = new Set(table.records.map((record) => record.key.toString('hex')));
    for (const node of nodes) if (!known.has(node.key.toString('hex'))) table.records.push({ key: node.key, value: node.value });
  }
}

/**
 * Every record that reads on an intact page, table by table (tolerant: damaged pages and what only
 * they lead to are skipped and named). Tries the newer meta page first, the older when the newer
 * leads nowhere. Throws PageFault when neither meta page is sound.
 */
export function readableRecords(file: string): Map<string, ReadableTable> {
  const pages = new PageFile(file);
  try {
    const { metas, faults } = metasOf(pages);
    // Newest first: a record of the newer state wins; the older state adds what the newer cannot reach.
    const merged = new Map<string, { table: ReadableTable; seen: Set<string> }>();
    let walked = 0;
    for (const meta of metas) {
      const tables = new Map<string, ReadableTable>();
      try {
        walkAll(pages, meta, tables);
      } catch (error) {
        if (!(error instanceof PageFault)) throw error;
        continue;
      }
      walked += 1;
      const faultless = [...tables.values()].every((table) => table.faults.length === 0);
      for (const [name, table] of tables) {
        let into = merged.get(name);
        if (!into) merged.set(name, (into = { table: { records: [], expected: table.expected, faults: table.faults }, seen: new Set() }));
        for (const record of table.records) {
          const id = record.key.toString('hex');
          if (into.seen.has(id)) continue;
          into.seen.add(id);
          into.table.records.push(record);
        }
      }
      // The newest state read whole: an older one has nothing to add.
      if (faultless) break;
    }
    if (walked === 0) throw new PageFault(faults[0] ?? 'no meta page leads to a readable tree');
    return new Map([...merged].map(([name, { table }]) => [name, table]));
  } finally {
    pages.close();
  }
}
