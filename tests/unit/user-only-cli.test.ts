import { afterEach, describe, expect, it } from '@jest/globals';
import { CliError } from '../../src/cli/context.js';
import { confirmUserOnly } from '../../src/cli/user-only.js';
import { formatSuspectUserActions, suspectUserActions } from '../../src/core/integrity/suspect-actions.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const PROJECT = '/work/project';
let t: TempTracker | undefined;
afterEach(() => t?.dispose());

function withRunningSession(): TempTracker {
  t = tempTracker({}, PROJECT);
  t.service.noteModelRequest('s1', 'build', 'fake/model');
  t.service.recordToolCall('s1', 'c1', 'bash', true);
  t.service.flush('test');
  return t;
}

describe('confirmUserOnly', () => {
  it('refuses under an agent, says how the user confirms, and writes nothing', () => {
    const { store } = withRunningSession();
    const facts = { env: { OPENCODE: '1' }, hasTty: false, opencodeAncestor: false };
    expect(() => confirmUserOnly('revive', { store, project: PROJECT, facts })).toThrow(CliError);
    expect(() => confirmUserOnly('revive', { store, project: PROJECT, facts })).toThrow(
      /"agent-tracker revive" is the user's decision.*\(OPENCODE=1\); nothing was changed\. If you are the user, run "agent-tracker revive …" yourself in a terminal window outside OpenCode\./,
    );
  });

  it.each<[string, boolean, string, { via: string; suspect: boolean }]>([
    ['a terminal, session running', true, PROJECT, { via: 'terminal-tty', suspect: false }],
    ['no terminal, session of this project running', false, PROJECT, { via: 'terminal-no-tty', suspect: true }],
    ['no terminal, only another project running', false, '/work/other', { via: 'terminal-no-tty', suspect: false }],
  ])('%s', (_name, hasTty, project, expected) => {
    const { store } = withRunningSession();
    const provenance = confirmUserOnly('import', { store, project, facts: { env: {}, hasTty, opencodeAncestor: false } });
    const { signs, ...rest } = provenance;
    expect(rest).toEqual({ action: 'import', ...expected });
    expect(signs === undefined).toBe(!expected.suspect);
  });

  it('keeps why it is suspect: no terminal, and when the running session of the project last recorded work', () => {
    const { store } = withRunningSession();
    const lastAt = store.tables.usage.get(['s1', 'build', 'fake/model'])?.lastAt;
    const provenance = confirmUserOnly('revive', { store, project: PROJECT, facts: { env: {}, hasTty: false, opencodeAncestor: false } });
    expect(provenance.signs).toEqual([`made without a terminal within 15 minutes of a tracked session of this project, whose last record was at ${lastAt}`]);
  });
});

describe('suspect user-only actions', () => {
  it('lists a suspect revive record and formats it for the report', () => {
    const tracker = withRunningSession();
    tracker.service.recordUserAction({ agent: 'build', project: PROJECT, summary: 'User revived build', provenance: { action: 'revive', via: 'terminal-no-tty', suspect: true } });
    tracker.service.recordUserAction({ agent: 'plan', project: PROJECT, summary: 'User revived plan', provenance: { action: 'revive', via: 'terminal-tty', suspect: false } });
    tracker.service.flush('test');
    const found = suspectUserActions(tracker.store);
    expect(found).toEqual([expect.objectContaining({ action: 'revive', agent: 'build', project: PROJECT })]);
    expect(formatSuspectUserActions(found)).toMatch(/^Suspect user-only actions \(1\)[^\n]*\n[^\n]*agent-tracker review[^\n]*\n {2}[0-9a-f]{8} {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d {2}revive build$/);
    expect(formatSuspectUserActions([])).toBe('');
  });

  it('says on each line why the record is suspect, when it knows', () => {
    const tracker = withRunningSession();
    const signs = ['made without a terminal within 15 minutes of a tracked session of this project, whose last record was at 2026-11-20T10:00:00.000Z'];
    tracker.service.recordUserAction({ agent: 'build', project: PROJECT, summary: 'User graded build', provenance: { action: 'grade', via: 'terminal-no-tty', suspect: true, signs } });
    tracker.service.flush('test');
    const found = suspectUserActions(tracker.store);
    expect(found).toEqual([expect.objectContaining({ action: 'grade', signs })]);
    expect(formatSuspectUserActions(found).split('\n')[2]).toMatch(new RegExp(`^ {2}[0-9a-f]{8} {2}\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d {2}grade build: ${signs[0]?.replace(/[()]/g, '\\$&')}$`));
  });
});
