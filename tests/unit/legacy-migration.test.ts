/**
 * Legacy migration against real LMDB files: a fixture in the old layout (written with lmdb, one
 * value large enough to be stored compressed) merged into a temporary central store.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { open } from 'lmdb';
import { legacyPathIn, mapLegacyEntries, migrateLegacy } from '../../src/core/store/legacy.js';
import { readLegacyEntries } from '../../src/core/store/store.js';
import { LONG_TASK, legacyFileIn, sampleLegacyFixture, writeLegacyDatabase } from '../helpers/legacy-fixture.js';
import type { LegacyFixture } from '../helpers/legacy-fixture.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const PROJECT = '/old/project';
let t: TempTracker;
afterEach(() => t?.dispose());

async function legacyIn(fixture: LegacyFixture = sampleLegacyFixture(PROJECT)): Promise<{ dir: string; file: string; fixture: LegacyFixture }> {
  const dir = path.join(t.dir, 'old-cwd');
  const file = await writeLegacyDatabase(legacyFileIn(dir), fixture);
  return { dir, file, fixture };
}

function snapshot(): Record<string, unknown[]> {
  const tables = t.store.tables;
  return {
    agents: [...tables.agents.getRange()],
    commits: [...tables.commits.getRange()],
    communication: [...tables.gradeEvents.getRange()],
    migrations: [...tables.migrations.getRange()],
  };
}

describe('the legacy fixture', () => {
  it('is the old single-file layout with a compressed value', async () => {
    t = tempTracker();
    const { file, fixture } = await legacyIn();
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['agent-tracker.lmdb', 'agent-tracker.lmdb-lock']);
    const raw = open({ path: file, encoding: 'binary', readOnly: true });
    const commit = fixture.commits[0];
    const stored = raw.get(`commit:${commit?.project_path}:${commit?.commit_hash}`) as Buffer;
    await raw.close();
    expect(stored.length).toBeLessThan(LONG_TASK.length / 4);
    const entries = [...readLegacyEntries(file)];
    expect(entries).toHaveLength(fixture.agents.length + fixture.commits.length + fixture.communication.length);
    expect(entries.find((e) => e.key.startsWith('commit:') && (e.value as { task_description: string }).task_description === LONG_TASK)).toBeDefined();
  });
});

describe('migrateLegacy', () => {
  it('maps snake_case records into the central layout', async () => {
    t = tempTracker();
    const { dir, fixture } = await legacyIn();
    const result = migrateLegacy(t.store, legacyPathIn(dir));
    const total = fixture.agents.length + fixture.commits.length + fixture.communication.length;
    expect(result).toMatchObject({ found: true, upToDate: false, added: total, skipped: 0, unrecognized: 0, addedByKind: { agents: 2, commits: 2, communication: 2 } });

    const [coder, halted] = fixture.agents;
    expect(t.store.tables.agents.get('legacy-coder')).toEqual({
      id: 'legacy-coder', sp: coder?.skill_points, xp: coder?.experience_points, cs: coder?.communication_score,
      commits: coder?.total_commits, bugs: coder?.total_bugs, halted: false, createdAt: coder?.created_at, updatedAt: coder?.updated_at,
    });
    expect(t.store.tables.agents.get('legacy-halted')).toMatchObject({ halted: true, sp: halted?.skill_points });

    const commit = fixture.commits[0];
    expect(t.store.tables.commits.get([PROJECT, commit?.commit_hash ?? ''])).toMatchObject({
      hash: commit?.commit_hash, agent: 'legacy-coder', model: coder?.model, message: LONG_TASK, timestamp: commit?.timestamp,
    });
    const events = [...t.store.tables.gradeEvents.getRange()].map((e) => e.value);
    expect(events).toContainEqual(expect.objectContaining({ agent: 'legacy-coder', grade: 2, reason: 'clear plan, asked before deleting data' }));
    expect(events).toContainEqual(expect.objectContaining({ agent: 'legacy-halted', grade: -1, project: PROJECT }));
    expect(t.store.tables.migrations.getKeysCount()).toBe(1);
  });

  it('makes migrated commits findable through the index kept in the same transaction', async () => {
    t = tempTracker();
    const { dir } = await legacyIn();
    const indexed: string[] = [];
    t.store.addIndexer((_tables, documents) => indexed.push(...documents.map((d) => d.kind)));
    migrateLegacy(t.store, legacyPathIn(dir));
    expect(indexed).toEqual(['commit', 'commit']);
  });

  it('is idempotent: a second run adds and records nothing', async () => {
    t = tempTracker();
    const { dir } = await legacyIn();
    migrateLegacy(t.store, legacyPathIn(dir));
    const after = snapshot();
    const again = migrateLegacy(t.store, legacyPathIn(dir));
    expect(again).toMatchObject({ added: 0, skipped: 6 });
    expect(snapshot()).toEqual(after);
    expect(migrateLegacy(t.store, legacyPathIn(dir), { skipIfUnchanged: true })).toMatchObject({ upToDate: true, added: 0 });
    expect(snapshot()).toEqual(after);
  });

  it('never overwrites what the central database already has', async () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'legacy-coder', 'fake/model');
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    t.service.flush('test');
    const central = t.store.tables.agents.get('legacy-coder');
    const { dir } = await legacyIn();
    const result = migrateLegacy(t.store, legacyPathIn(dir));
    expect(result).toMatchObject({ added: 5, skipped: 1 });
    expect(t.store.tables.agents.get('legacy-coder')).toEqual(central);
  });

  it('never changes or deletes the legacy file', async () => {
    t = tempTracker();
    const { dir, file } = await legacyIn();
    const before = fs.readFileSync(file);
    migrateLegacy(t.store, legacyPathIn(dir));
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('adds new legacy keys on a later run and counts what it does not recognize', async () => {
    t = tempTracker();
    const fixture = sampleLegacyFixture(PROJECT);
    const { dir, file } = await legacyIn({ ...fixture, agents: fixture.agents.slice(0, 1) });
    migrateLegacy(t.store, legacyPathIn(dir));
    await writeLegacyDatabase(file, { agents: fixture.agents.slice(1), commits: [], communication: [], extra: { 'setting:theme': { dark: true }, 'agent:broken': 'not a record' } });
    const result = migrateLegacy(t.store, legacyPathIn(dir), { skipIfUnchanged: true });
    expect(result).toMatchObject({ upToDate: false, added: 1, unrecognized: 2, addedByKind: { agents: 1, commits: 0, communication: 0 } });
    expect(t.store.tables.agents.get('legacy-halted')).toBeDefined();
    expect(t.store.tables.migrations.getKeysCount()).toBe(2);
  });

  it('reports a missing legacy database as not found and writes nothing', () => {
    t = tempTracker();
    expect(migrateLegacy(t.store, legacyPathIn(path.join(t.dir, 'nowhere')))).toMatchObject({ found: false, added: 0 });
    expect(t.store.tables.migrations.getKeysCount()).toBe(0);
  });

  it('fails cleanly on files that are not sound databases, leaving the central one unchanged', async () => {
    t = tempTracker();
    const good = fs.readFileSync(await writeLegacyDatabase(path.join(t.dir, 'good', 'db.lmdb'), sampleLegacyFixture(PROJECT)));
    const bad: Record<string, Buffer> = {
      text: Buffer.from('this is not lmdb'),
      empty: Buffer.alloc(0),
      zeros: Buffer.alloc(good.length),
      'cut in the header': good.subarray(0, 64),
      'cut after the meta pages': good.subarray(0, good.length - 4096),
    };
    for (const [name, content] of Object.entries(bad)) {
      const file = legacyFileIn(path.join(t.dir, name));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
      expect(() => migrateLegacy(t.store, file)).toThrow(/cannot read the legacy database/);
    }
    expect(snapshot()).toEqual({ agents: [], commits: [], communication: [], migrations: [] });
  });
});

describe('mapLegacyEntries', () => {
  it('reads times given as epoch milliseconds and parses keys when fields are missing', () => {
    const { records, unrecognized } = mapLegacyEntries([
      { key: 'communication:build:abcdef1:1736500000000', value: { grade: 5 } },
      { key: 'commit:/p:with:colons:abcdef1234', value: { agent_id: 'build', timestamp: 1736500000000 } },
      { key: 'communication:build:abcdef1:1', value: { grade: 3 } },
    ]);
    expect(unrecognized).toBe(1);
    expect(records).toHaveLength(2);
    expect(records).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'commits', key: ['/p:with:colons', 'abcdef1234'], value: expect.objectContaining({ timestamp: new Date(1736500000000).toISOString() }) }),
        expect.objectContaining({ kind: 'communication', value: expect.objectContaining({ agent: 'build', commit: 'abcdef1', grade: 5, timestamp: new Date(1736500000000).toISOString() }) }),
      ]),
    );
  });
});
