/**
 * The halts kept beside the database (store/known-halts.ts): written by the write that halts an agent,
 * cleared by the revive, and read for the halt only while the database cannot be read. A temporary LMDB.
 */
import fs from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { knownHaltsPath, readKnownHalts } from '../../src/core/store/known-halts.js';
import { Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { silentLogger } from '../../src/core/logger.js';
import { tempTracker } from '../helpers/temp-store.js';

const PROJECT = '/work/project';

describe('the halts kept beside the database', () => {
  it("follow the record: the bug report's write adds the agent, the revive's removes it", () => {
    const t = tempTracker({}, PROJECT);
    try {
      t.service.noteModelRequest('ses_1', 'build', 'fake/model');
      t.service.reportBug({ agent: 'build', reporter: 'build', sessionId: 'ses_1', project: PROJECT, description: 'broke it' });
      expect(t.service.flush('bug').ok).toBe(true);
      expect([...readKnownHalts(t.store.path)]).toEqual(['build']);
      t.service.revive('build');
      expect(t.service.flush('revive').ok).toBe(true);
      expect([...readKnownHalts(t.store.path)]).toEqual([]);
    } finally {
      t.dispose();
    }
  });

  it('hold while the database is not open, and only then', () => {
    const t = tempTracker({}, PROJECT);
    try {
      fs.writeFileSync(knownHaltsPath(t.store.path), JSON.stringify({ halted: ['build'] }));
      // Open: the record says build works, and the record wins.
      expect(t.service.isHalted('build')).toBe(false);
      const pending = Store.pending({ path: t.store.path, maxDatabaseSize: t.config.maxDatabaseSize }, 'the database is damaged');
      const service = new TrackingService({ store: pending, config: t.config, logger: silentLogger, project: PROJECT });
      expect(service.isHalted('build')).toBe(true);
      expect(service.isHalted('plan')).toBe(false);
    } finally {
      t.dispose();
    }
  });
});
