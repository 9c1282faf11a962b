/**
 * Two small records the recorder keeps beside the counts, on a temporary LMDB: the items setup put
 * into each OpenCode config folder (provisioned.ts) and each project's git-signal cache
 * (git-signals.ts), each read back for its own folder or project while several are buffered.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

describe('the provisioning record', () => {
  it('keeps each config folder’s items apart while both are buffered', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommand('s1');
    t.service.recordProvisioned('/cfg-a', ['agent:a']);
    t.service.recordProvisioned('/cfg-b', ['skill:b']);
    expect(t.service.provisionedItems('/cfg-a')).toEqual(['agent:a']);
    expect(t.service.provisionedItems('/cfg-b')).toEqual(['skill:b']);
    expect(t.service.provisionedItems('/cfg-c')).toEqual([]);
  });
});

describe('the git-signal cache', () => {
  it('is each project’s own while two are buffered, before and after the flush', () => {
    t = tempTracker();
    const a = { head: 'a'.repeat(40), counted: { ['1'.repeat(40)]: { reverted: true, followUpFix: false } } };
    const b = { head: 'b'.repeat(40), counted: { ['2'.repeat(40)]: { reverted: false, followUpFix: true } } };
    t.service.recordGitSignals('/work/a', [], a);
    t.service.recordGitSignals('/work/b', [], b);
    expect(t.service.gitSignalCache('/work/a')).toEqual(a);
    expect(t.service.gitSignalCache('/work/b')).toEqual(b);
    expect(t.service.gitSignalCache('/work/c')).toBeUndefined();
    t.service.flush('test');
    expect(t.service.gitSignalCache('/work/b')).toEqual(b);
  });
});
