/**
 * Stored text carries no secret (issue 32): what the tracker records is masked with the values of
 * every project the database knows, not only the current one, so text recorded in project B that
 * quotes project A's value is stored masked; prior-art parts shown in B are masked with every
 * project's values too; and a failure stores a notice, never the text.
 */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { resolveConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { scheduleHistoryImport } from '../../src/opencode/background-import.js';
import { maskModelMessages } from '../../src/opencode/guards/message-mask.js';
import { ProjectSecrets } from '../../src/opencode/guards/project-secrets.js';
import { maskForReader, STORED_TEXT_WITHHELD, StoredTextMasker } from '../../src/opencode/guards/stored-text.js';
import { writeJsonHistory } from '../helpers/opencode-history.js';
import { profile, storeProfiles } from '../helpers/synthetic-history.js';
import { repoWithCommits } from '../helpers/printed-commits.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-stored-text-');

const A_VALUE = 'sk-live-projectA-7f3c9e21';
const B_VALUE = 'pw-projectB-0d8e44aa';

/** Two projects with their own env files, and B's masker for stored text knowing both. */
async function twoProjects(): Promise<{ a: string; b: string; bSecrets: ProjectSecrets; stored: StoredTextMasker }> {
  const a = tempDir();
  const b = tempDir();
  fs.writeFileSync(path.join(a, '.env'), `API_KEY=${A_VALUE}\n`);
  fs.writeFileSync(path.join(b, '.env'), `DB_PASSWORD=${B_VALUE}\n`);
  const bSecrets = new ProjectSecrets(b, silentLogger);
  await bSecrets.scan();
  const stored = new StoredTextMasker(bSecrets, silentLogger);
  await stored.addKnownProjects(() => [a, b, path.join(a, 'gone-project')], b);
  return { a, b, bSecrets, stored };
}

describe('StoredTextMasker', () => {
  it('masks the values of every known project, not only the current one', async () => {
    const { bSecrets, stored } = await twoProjects();
    expect(stored.otherProjects).toBe(1);
    expect(stored.mask(`copied ${A_VALUE} and ${B_VALUE}`)).toBe('copied [masked: API_KEY from .env] and [masked: DB_PASSWORD from .env]');
    // B's own masker does not know A's value: what the old record path used.
    expect(bSecrets.maskNow(A_VALUE)).toBe(A_VALUE);
  });

  it('masks with the values of a project added later (one whose history is imported), read once; a gone folder adds nothing', async () => {
    const { a } = await twoProjects();
    const c = tempDir();
    const C_VALUE = 'tok-projectC-5a6b7c8d';
    fs.writeFileSync(path.join(c, '.env'), `SERVICE_TOKEN=${C_VALUE}\n`);
    const stored = new StoredTextMasker(undefined, silentLogger);
    expect(stored.mask(`deploy with ${C_VALUE}`)).toBe(`deploy with ${C_VALUE}`);
    await stored.addProject(c);
    await stored.addProject(c);
    await stored.addProject(path.join(a, 'gone-project'));
    expect(stored.mask(`deploy with ${C_VALUE}`)).toBe('deploy with [masked: SERVICE_TOKEN from .env]');
    expect(stored.otherProjects).toBe(1);
  });

  it('stores a notice when masking fails, never the text', () => {
    const broken = { maskNow: () => { throw new Error('disk on fire'); } } as unknown as ProjectSecrets;
    expect(new StoredTextMasker(broken, silentLogger).mask(`key ${A_VALUE}`)).toBe(STORED_TEXT_WITHHELD);
    expect(maskForReader(`key ${A_VALUE}`, broken)).toBe(STORED_TEXT_WITHHELD);
  });

  it('masks recorded text again with the reader\'s values', async () => {
    const { bSecrets } = await twoProjects();
    expect(maskForReader(`old entry ${B_VALUE}`, bSecrets)).toBe('old entry [masked: DB_PASSWORD from .env]');
    expect(maskForReader('nothing here', undefined)).toBe('nothing here');
  });

  it('masks the tracker\'s own tool parts with every project\'s values as a request is built', async () => {
    const { bSecrets, stored } = await twoProjects();
    const priorArt = { type: 'tool', tool: 'prior-art', state: { status: 'completed', input: {}, title: 'prior art', output: `in A: used ${A_VALUE}`, metadata: {} } };
    const output = { messages: [{ parts: [priorArt] }] };
    await maskModelMessages(output, () => bSecrets.masker(), { tools: new Set(['prior-art']), masker: () => stored.masker() });
    expect(priorArt.state.output).toBe('in A: used [masked: API_KEY from .env]');
  });

  it('is what the tracking service stores: an activity in B quoting A\'s value is recorded masked', async () => {
    const { b, stored } = await twoProjects();
    const dir = tempDir();
    const config = resolveConfig({ options: { databasePath: path.join(dir, 'db.lmdb') }, env: {}, home: dir });
    const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
    try {
      const service = new TrackingService({ store, config, logger: silentLogger, project: b, maskText: (text) => stored.mask(text) });
      service.logActivity({ agent: 'build', project: b, task: `moved ${A_VALUE} over`, outcome: `kept ${B_VALUE}` });
      service.flush('test');
      const recorded = JSON.stringify([...store.tables.activities.getRange()]);
      expect(recorded).toContain('[masked: API_KEY from .env]');
      expect(recorded).not.toContain(A_VALUE);
      expect(recorded).not.toContain(B_VALUE);
    } finally {
      store.close();
    }
  });

  it("is what the plugin's history import stores: a replayed commit message is recorded masked (the import child masks with every known project's values)", async () => {
    const { a, b } = await twoProjects();
    const dataDir = tempDir();
    const at = Date.UTC(2025, 0, 10, 9, 0, 0);
    // The commit is in B's repository, made while the call ran (a replayed commit git does not hold is not recorded).
    const [summary] = repoWithCommits(b, [`rotate ${A_VALUE}`], [at + 1010]).printed;
    writeJsonHistory(dataDir, [
      {
        id: 'ses_cross',
        directory: b,
        created: at,
        updated: at + 60_000,
        messages: [
          { id: 'msg_0', role: 'user', created: at },
          {
            id: 'msg_1', role: 'assistant', agent: 'build', providerID: 'fake', modelID: 'fake-model', created: at + 1000,
            tools: [{ callId: 'c1', tool: 'bash', status: 'completed', command: 'git commit -qam rotate', output: summary, exit: 0 }],
          },
        ],
      },
    ]);
    const dir = tempDir();
    const config = resolveConfig({ options: { databasePath: path.join(dir, 'db.lmdb') }, env: {}, home: dir });
    const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
    try {
      // Project A is known to the database (its profile), as after a session there.
      storeProfiles(store, config, [profile(a, 'javascript', 'none', 'api')]);
      scheduleHistoryImport({ store, config, logger: silentLogger, project: b, location: dataDir, delayMs: 0, startedAt: at + 10 * 60_000 });
      // Bounded wait for the background import (a child process) to write the commit.
      for (let round = 0; round < 600 && store.tables.commits.getKeysCount() === 0; round += 1) await new Promise((resolve) => setTimeout(resolve, 25));
      const commits = JSON.stringify([...store.tables.commits.getRange()]);
      expect(commits).toContain('rotate [masked: API_KEY from .env]');
      expect(commits).not.toContain(A_VALUE);
    } finally {
      store.close();
    }
  });
});
