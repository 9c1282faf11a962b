/**
 * Every turn is counted under its task kind on the usage record of the setup that worked it, and the
 * counts travel through export and import like every other counter.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { exportRecords, importExport } from '../../src/core/store/transfer.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const opened: TempTracker[] = [];
afterEach(() => {
  for (const t of opened.splice(0)) t.dispose();
});

function tracker(): TempTracker {
  const t = tempTracker();
  opened.push(t);
  return t;
}

describe('task kinds', () => {
  it('counts each turn under its kind, and export then import keeps the counts', () => {
    const source = tracker();
    const turns: [string, string[]][] = [
      ['fix the crash when the cart is empty', ['src/cart.ts']],
      ['fix the crash when the user logs out', ['src/auth.ts']],
      ['add a pricing page with three plans', ['src/pricing.tsx']],
      ['update the README with the new install steps', ['README.md']],
    ];
    source.service.noteModelRequest('s1', 'build', 'fake/a');
    for (const [prompt, files] of turns) {
      source.service.noteTurnTask('s1', prompt);
      for (const file of files) source.service.noteFileEdited('s1', file);
      source.service.recordToolCall('s1', `prt_${prompt.length}`, 'edit', true);
      expect(source.service.endTurn('s1').ok).toBe(true);
    }
    const record = source.store.tables.usage.get(['s1', 'build', 'fake/a']);
    expect(record).toMatchObject({ turns: 4, turnsBugFix: 2, turnsFeature: 1, turnsDocs: 1 });

    let text = '';
    exportRecords(source.store, (chunk) => (text += chunk));
    const target = tracker();
    importExport(target.store, text, 'kinds.ndjson');
    expect(target.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ turns: 4, turnsBugFix: 2, turnsFeature: 1, turnsDocs: 1 });
  });
});
