/**
 * Text from the record is data: escape sequences and bidi overrides in agent names reach no
 * terminal through the CLI's printed text, and JSON output still parses to the exact names.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { neutralizeControls } from '../../src/core/report/terminal-text.js';
import { makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { tempTracker } from '../helpers/temp-store.js';

/** Clear screen (CSI), set the terminal title (OSC ... BEL), a one-byte C1 CSI, and a right-to-left override. */
const HOSTILE_NAME = 'evil\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202eliam';
/** What a terminal acts on instead of showing (a CR is one only without its LF: CSV ends lines CRLF). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

describe('control characters in printed text', () => {
  it('turns every terminal control into its visible \\u escape and leaves newlines, tabs and plain text alone', () => {
    expect(neutralizeControls(`${HOSTILE_NAME}\n\tok é`)).toBe('evil\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m\\u202eliam\n\tok é');
  });

  it('keeps the CRLF line ends of CSV and escapes a lone carriage return (which overwrites the line)', () => {
    expect(neutralizeControls('a,b\r\nc,d\r\n')).toBe('a,b\r\nc,d\r\n');
    expect(neutralizeControls('safe\rEVIL')).toBe('safe\\u000dEVIL');
  });

  it('keeps JSON exact: the neutralised text of JSON parses to the same value', () => {
    const value = { agents: [{ id: HOSTILE_NAME, note: 'line\nbreak \u2066isolate\u2069 \u0085' }] };
    const printed = neutralizeControls(JSON.stringify(value, null, 2));
    expect(printed).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(printed)).toEqual(value);
  });
});

describe('the CLI prints recorded names inert', () => {
  let sandbox: Sandbox;
  let db: string;
  beforeAll(() => {
    sandbox = makeSandbox('agent-tracker-terminal-');
    const tracker = tempTracker({ databasePath: path.join(sandbox.root, 'hostile.lmdb') });
    tracker.service.noteModelRequest('s1', HOSTILE_NAME, 'fake/model');
    tracker.service.recordToolCall('s1', 'c1', 'bash', true);
    tracker.service.flush('test');
    db = tracker.config.databasePath;
    tracker.store.close();
  });
  afterAll(() => removeSandbox(sandbox));

  it.each([['status'], ['report'], ['report', '--csv']])('%s shows the name with its escapes visible', (...args) => {
    const result = runCli(sandbox, [...args, '--db', db]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stdout).toMatch(/evil/);
  });

  it.each([['status'], ['report']])('%s --json gives the exact name back', (command) => {
    const result = runCli(sandbox, [command, '--json', '--db', db]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    expect(result.stdout).toContain(JSON.stringify(HOSTILE_NAME).slice(1, 5));
    const parsed = JSON.parse(result.stdout) as { agents?: { id: string }[]; rows?: { agent: string }[] };
    const names = parsed.agents?.map((agent) => agent.id) ?? parsed.rows?.map((row) => row.agent) ?? [];
    expect(names).toContain(HOSTILE_NAME);
  });
});
