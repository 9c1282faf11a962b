/**
 * After an upgrade that changes the search rules, the prior-art index of an existing database is
 * rebuilt once: at the first prior-art tool call or prior-art command, in one transaction. The fixture is
 * a database written by the tracker before the new analyzer (tests/fixtures/prior-art-v1/make.mjs).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { reindexProgress, QUIET_REBUILD_MS } from '../../src/cli/reindex-progress.js';
import type { Logger } from '../../src/core/logger.js';
import { rebuildStaleTermIndex, termIndexIsCurrent } from '../../src/core/search/reindex.js';
import type { ReindexProgress } from '../../src/core/search/reindex.js';
import { QueryService } from '../../src/core/search/service.js';
import { TERM_INDEX_VERSION } from '../../src/core/search/index/layout.js';
import { TermIndexReader } from '../../src/core/search/index/reader.js';
import { SCHEMA_VERSION, Store } from '../../src/core/store/store.js';
import { upgradeTermIndex } from '../../src/opencode/term-index-upgrade.js';
import { priorArtTools } from '../../src/opencode/tools/prior-art.js';
import { resolveConfig } from '../../src/core/config.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import type { ToolContext } from '@opencode-ai/plugin';
import { DEFAULT_PROJECT, priorArtStore } from '../helpers/prior-art-store.js';
import type { PriorArtStore, Seed } from '../helpers/prior-art-store.js';
import { makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { localPriorArt } from '../../src/opencode/prior-art-answer.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'prior-art-v1', 'prior-art-v1.lmdb');
const PROJECT = '/projects/photo-gallery';
const SIZE = 64 * 1024 * 1024;
const tempDir = useTempDirs('agent-tracker-reindex-');
/** Entries per rebuild step in these tests (the default is larger). */
const REINDEX_BATCH = 50;

let stores: Store[] = [];
let seeded: PriorArtStore | undefined;
let sandbox: Sandbox | undefined;
afterEach(() => {
  for (const store of stores) store.close();
  stores = [];
  seeded?.dispose();
  seeded = undefined;
  if (sandbox) removeSandbox(sandbox);
  sandbox = undefined;
});

/** A copy of the fixture (the fixture itself is never opened for writing). */
function oldDatabase(): string {
  const file = path.join(tempDir(), 'db.lmdb');
  fs.copyFileSync(FIXTURE, file);
  return file;
}

function openStore(file: string, readOnly = false): Store {
  const store = Store.open({ path: file, maxDatabaseSize: SIZE, readOnly });
  stores.push(store);
  return store;
}

const found = (store: Store, text: string) =>
  new QueryService(store).searchPriorArt({ taskDescription: text, scope: PROJECT }).positivePatterns.map((match) => match.task);

const entryCounts = (store: Store) => {
  const counts = store.counts();
  return { commits: counts.commits, activities: counts.activities, retrospectives: counts.retrospectives };
};

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (message: string) => void lines.push(`info ${message}`),
    warn: (message: string) => void lines.push(`warn ${message}`),
    error: (message: string) => void lines.push(`error ${message}`),
  };
}

describe('rebuilding a prior-art index built by the earlier analyzer', () => {
  it('rebuilds it once, keeping every entry, and then finds what the earlier index missed', () => {
    const store = openStore(oldDatabase());
    const entriesBefore = entryCounts(store);
    expect(termIndexIsCurrent(store)).toBe(false);
    expect(new TermIndexReader(store.tables.terms).version()).toBe(1);
    expect(found(store, 'caching')).toEqual([]);
    expect(found(store, 'CI is slow')).toEqual([]);

    const result = rebuildStaleTermIndex(store);

    expect(result).toMatchObject({ rebuilt: true, documents: 4 });
    expect(termIndexIsCurrent(store)).toBe(true);
    expect(new TermIndexReader(store.tables.terms).version()).toBe(TERM_INDEX_VERSION);
    expect(new TermIndexReader(store.tables.terms).statistics().documents).toBe(4);
    expect(entryCounts(store)).toEqual(entriesBefore);
    expect(found(store, 'caching')).toEqual(['Cache thumbnail generation in the worker']);
    expect(found(store, 'getUserById')).toEqual(['Add get_user_by_id helper to the accounts service']);
    expect(found(store, 'CI is slow')).toEqual(['CI pipeline takes 25 minutes']);
    expect(found(store, 'auth tokens')).toEqual(['Authentication with JWT access tokens']);
    expect(rebuildStaleTermIndex(store)).toMatchObject({ rebuilt: false, documents: 0 });
  });

  it('stamps an older file with the current schema at its first writable open, and leaves a read-only open alone', () => {
    const file = oldDatabase();
    const readOnly = Store.open({ path: file, maxDatabaseSize: SIZE, readOnly: true });
    expect(readOnly.meta().schemaVersion).toBe(1);
    readOnly.close();
    expect(openStore(file).meta().schemaVersion).toBe(SCHEMA_VERSION);
  });

  it('answers nothing from an index of an earlier layout and writes nothing into it until the rebuild', () => {
    seeded = priorArtStore();
    seeded.write([{ kind: 'activity', id: 'before', task: 'thumbnail cache warmup' }]);
    const store = seeded.store;
    store.write((tables) => tables.terms.putSync(['s', 'version'], 2));
    const keysBefore = store.tables.terms.getKeysCount();
    const tasks = (text: string) => new QueryService(store).searchPriorArt({ taskDescription: text, scope: DEFAULT_PROJECT }).positivePatterns.map((match) => match.task).sort();
    expect(tasks('thumbnail')).toEqual([]);
    seeded.write([{ kind: 'activity', id: 'after', task: 'thumbnail resize' }]);
    expect(store.tables.terms.getKeysCount()).toBe(keysBefore);
    expect(rebuildStaleTermIndex(store)).toMatchObject({ rebuilt: true, documents: 2 });
    expect(tasks('thumbnail')).toEqual(['thumbnail cache warmup', 'thumbnail resize']);
  });

  it('leaves the earlier index whole when the rebuild fails midway (one transaction)', () => {
    seeded = priorArtStore();
    const seeds = Array.from({ length: REINDEX_BATCH + 1 }, (_, i): Seed => ({ kind: 'activity', id: `e${i}`, task: `thumbnail job ${i}` }));
    seeded.write(seeds);
    const store = seeded.store;
    // An index of another version: the rebuild must run.
    store.write((tables) => tables.terms.putSync(['s', 'version'], 1));
    const keysBefore = store.tables.terms.getKeysCount();
    const batches: ReindexProgress[] = [];
    expect(() =>
      rebuildStaleTermIndex(store, (progress) => {
        batches.push(progress);
        throw new Error('interrupted');
      }, REINDEX_BATCH),
    ).toThrow('interrupted');
    expect(batches.map(({ done, total }) => [done, total])).toEqual([[REINDEX_BATCH, REINDEX_BATCH + 1]]);
    expect(store.tables.terms.getKeysCount()).toBe(keysBefore);
    expect(termIndexIsCurrent(store)).toBe(false);

    const progress: [number, number][] = [];
    expect(rebuildStaleTermIndex(store, ({ done, total }) => void progress.push([done, total]), REINDEX_BATCH)).toMatchObject({ rebuilt: true, documents: REINDEX_BATCH + 1 });
    expect(progress).toEqual([[REINDEX_BATCH, REINDEX_BATCH + 1], [REINDEX_BATCH + 1, REINDEX_BATCH + 1]]);
    expect(new TermIndexReader(store.tables.terms).statistics().documents).toBe(REINDEX_BATCH + 1);
  });

  it('stamps a new database with the current version at its first write, so it is never rebuilt', () => {
    seeded = priorArtStore();
    seeded.write([{ kind: 'commit', id: 'c', message: 'first commit' }]);
    expect(new TermIndexReader(seeded.store.tables.terms).version()).toBe(TERM_INDEX_VERSION);
    expect(rebuildStaleTermIndex(seeded.store)).toMatchObject({ rebuilt: false });
  });

  it('in the plugin: logs one line when it rebuilt, nothing when current, an error (never a throw) when it cannot write', () => {
    const readOnly = openStore(oldDatabase(), true);
    const failing = recordingLogger();
    expect(() => upgradeTermIndex(readOnly, failing)).not.toThrow();
    expect(failing.lines).toHaveLength(1);
    expect(failing.lines[0]).toMatch(/^error agent-tracker: rebuilding the prior-art index failed, tracking goes on: .*agent-tracker prior-art/);

    const store = openStore(oldDatabase());
    const logger = recordingLogger();
    upgradeTermIndex(store, logger);
    upgradeTermIndex(store, logger);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatch(/^info agent-tracker: rebuilt the prior-art index for the new search rules \(4 entries, \d+ ms\)$/);
  });

  it('at the first prior-art tool call: rebuilds the index and answers from the new one', async () => {
    const store = openStore(oldDatabase());
    const logger = recordingLogger();
    const config = resolveConfig({ options: { databasePath: store.path }, env: {}, home: tempDir() });
    const service = new TrackingService({ store, config, logger, project: PROJECT });
    const tools = priorArtTools({ service, logger, project: PROJECT, renderStatus: () => '', priorArt: localPriorArt(service.store, logger) });
    const context = { sessionID: 's1', messageID: 'm1', agent: 'plan', directory: PROJECT, worktree: PROJECT, abort: new AbortController().signal } as unknown as ToolContext;
    expect(termIndexIsCurrent(store)).toBe(false);
    const text = await tools['prior-art']!.execute({ task: 'caching thumbnails', scope: PROJECT }, context);
    expect(text).toContain('> task: Cache thumbnail generation in the worker');
    expect(termIndexIsCurrent(store)).toBe(true);
    expect(logger.lines).toEqual([expect.stringMatching(/^info agent-tracker: rebuilt the prior-art index for the new search rules \(4 entries, \d+ ms\)$/)]);
  });

  it('at `agent-tracker prior-art`: rebuilds a small index silently and answers from the new one', () => {
    sandbox = makeSandbox('agent-tracker-reindex-cli-');
    fs.copyFileSync(FIXTURE, sandbox.dbPath);
    const result = runCli(sandbox, ['prior-art', 'caching thumbnails', '--json', '--scope', PROJECT]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout) as { positivePatterns: { task: string }[] };
    expect(answer.positivePatterns.map((match) => match.task)).toEqual(['Cache thumbnail generation in the worker']);
  });
});

describe('the CLI progress line of a rebuild', () => {
  it.each([
    [{ done: 2_000, total: 4_001, elapsedMs: QUIET_REBUILD_MS - 1 }, []],
    [{ done: 2_000, total: 4_001, elapsedMs: QUIET_REBUILD_MS }, ['agent-tracker: rebuilding the prior-art index for the new search rules: 2000 of 4001 entries (49%)']],
    [{ done: 4_001, total: 4_001, elapsedMs: 5_000 }, ['agent-tracker: rebuilding the prior-art index for the new search rules: 4001 of 4001 entries (100%)']],
    [{ done: 0, total: 0, elapsedMs: 5_000 }, ['agent-tracker: rebuilding the prior-art index for the new search rules: 0 of 0 entries (100%)']],
  ])('shows %p as %p', (progress, lines) => {
    const written: string[] = [];
    reindexProgress({ out: () => undefined, err: (text) => void written.push(text) })(progress);
    expect(written).toEqual(lines);
  });
});
