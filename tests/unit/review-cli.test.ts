/**
 * `agent-tracker review`, in-process on a temporary database: lists the suspect user-only records,
 * settles one with --confirm/--drop (only from a terminal), and a settled one stops warning.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError } from '../../src/cli/context.js';
import { run } from '../../src/cli/commands/review.js';
import type { ReviewDeps } from '../../src/cli/commands/review.js';
import { formatSuspectUserActions, suspectUserActions } from '../../src/core/integrity/suspect-actions.js';
import type { SuspectUserAction } from '../../src/core/integrity/suspect-actions.js';
import { resolveConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';

const PROJECT = '/work/project';
const TERMINAL = { env: {}, hasTty: true, opencodeAncestor: false };
const NO_TERMINAL = { env: {}, hasTty: false, opencodeAncestor: false };
let dir: string;
let dbPath: string;
const savedConfigHome = process.env.XDG_CONFIG_HOME;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-review-'));
  // The CLI reads the plugin's options from the OpenCode config folder: a temporary one, never HOME's.
  process.env.XDG_CONFIG_HOME = path.join(dir, 'config');
  dbPath = path.join(dir, 'db.lmdb');
  const config = resolveConfig({ options: { databasePath: dbPath }, env: {}, home: dir });
  const store = Store.open({ path: dbPath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  const service = new TrackingService({ store, config, logger: silentLogger, project: PROJECT });
  service.recordUserAction({ agent: 'build', project: PROJECT, summary: 'User revived build', provenance: { action: 'revive', via: 'terminal-no-tty', suspect: true } });
  service.recordUserAction({ agent: 'plan', project: PROJECT, summary: 'User revived plan', provenance: { action: 'revive', via: 'terminal-no-tty', suspect: true } });
  service.flush('test');
  store.close();
});
afterEach(() => {
  if (savedConfigHome === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedConfigHome;
  fs.rmSync(dir, { recursive: true, force: true });
});

async function review(args: string[], deps: Partial<ReviewDeps> = {}): Promise<string> {
  let out = '';
  await run([...args, '--db', dbPath], { out: (text) => void (out += `${text}\n`), err: () => undefined }, { ask: () => Promise.resolve(undefined), facts: NO_TERMINAL, ...deps });
  return out;
}

function stillWarning(): SuspectUserAction[] {
  const store = Store.open({ path: dbPath, maxDatabaseSize: 1 << 26, readOnly: true });
  try {
    return suspectUserActions(store);
  } finally {
    store.close();
  }
}

describe('agent-tracker review', () => {
  it('lists each suspect record with an id to settle it by', async () => {
    const [build, plan] = stillWarning();
    const out = await review([]);
    expect(out).toMatch(new RegExp(`^ {2}${build?.id} {2}\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d {2}revive build$`, 'm'));
    expect(out).toMatch(new RegExp(`^ {2}${plan?.id} .*revive plan$`, 'm'));
    expect(out).toContain('agent-tracker review --confirm ID');
  });

  it('confirms one from a terminal: it stops warning, the other still warns, and a second review is refused', async () => {
    const [build, plan] = stillWarning();
    const out = await review(['--confirm', build?.id ?? ''], { facts: TERMINAL });
    expect(out).toContain(`${build?.id} revive build`);
    expect(out).toContain('confirmed; it no longer warns');
    expect(stillWarning().map((action) => action.id)).toEqual([plan?.id]);
    await expect(review(['--drop', build?.id ?? ''], { facts: TERMINAL })).rejects.toThrow(/already confirmed/);
  });

  it('refuses to settle without a terminal, or under an agent, and changes nothing', async () => {
    const [build] = stillWarning();
    await expect(review(['--confirm', build?.id ?? ''])).rejects.toThrow(CliError);
    await expect(review(['--confirm', build?.id ?? ''], { facts: { ...TERMINAL, env: { OPENCODE: '1' } } })).rejects.toThrow(/looks like an agent/);
    expect(stillWarning()).toHaveLength(2);
  });

  it('asks about each in a terminal; a dropped one stops warning, a skipped one stays', async () => {
    const out = await review([], { facts: TERMINAL, ask: (action) => Promise.resolve(action.agent === 'plan' ? 'dropped' : undefined) });
    expect(out).toContain('revive plan');
    expect(out).toContain('dropped; it no longer warns');
    expect(stillWarning().map((action) => action.agent)).toEqual(['build']);
    expect(formatSuspectUserActions(stillWarning())).toMatch(/^Suspect user-only actions \(1\)/);
  });

  it('names an unknown id', async () => {
    await expect(review(['--confirm', 'nope'], { facts: TERMINAL })).rejects.toThrow(/no suspect record has the id "nope"/);
  });
});
