/**
 * The player sheet in the real `opencode` binary: a toast carrying the sheet is published after a
 * commit (watched on `opencode serve`'s event stream while the session is driven over HTTP), and
 * the `agent-status` tool answers with the FIGlet name and the project's pending changes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, jest } from '@jest/globals';
import figlet from 'figlet';
import cybermedium from 'figlet/fonts/Cybermedium';
import { SHEET_WIDTH } from '../../src/core/report/sheet.js';
import { bash, call, say } from '../helpers/fake-model.js';
import { useFakeOpencode } from '../helpers/fake-opencode.js';
import { git, makeRepo, runOpencode } from '../helpers/sandbox.js';
import { prompt, startServe } from '../helpers/serve.js';
import type { BusEventJson } from '../helpers/serve.js';

jest.setTimeout(300_000);

const TOAST_WAIT_MS = 30_000;

interface ToastEvent {
  title?: string;
  message: string;
  variant: string;
}

/** The lines figlet draws for a name in Cybermedium, without trailing blanks. */
function cybermediumLines(name: string): string[] {
  figlet.parseFont('Cybermedium', cybermedium);
  return figlet
    .textSync(name, { font: 'Cybermedium' })
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '');
}

function toasts(events: BusEventJson[]): ToastEvent[] {
  return events.filter((event) => event.type === 'tui.toast.show').map((event) => event.properties as unknown as ToastEvent);
}

/** Every string inside a parsed JSON value. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}

describe('the player sheet in a real OpenCode session', () => {
  const world = useFakeOpencode({
    'COMMIT-TURN': [bash('echo sheet > sheet.txt && git add sheet.txt && git commit -q -m "add sheet"'), say('Committed.')],
    'STATUS-TURN': [call('agent-status', {}), say('Here is my sheet.')],
  });

  it('publishes a toast carrying the sheet after a commit, and one at session start', async () => {
    const repo = makeRepo(world.sandbox, 'toast');
    const served = await startServe(world.sandbox, repo);
    try {
      const session = await served.request<{ id: string }>('POST', '/session', {});
      await prompt(served, session.id, 'COMMIT-TURN: add a file and commit it');

      const hash = git(repo, ['rev-parse', 'HEAD']).trim();
      const title = `build: commit ${hash.slice(0, 7)}`;
      const event = await served.waitForEvent((e) => e.type === 'tui.toast.show' && e.properties.title === title, TOAST_WAIT_MS);
      const commitToast = event.properties as unknown as ToastEvent;
      const lines = commitToast.message.split('\n');
      expect(lines.slice(0, cybermediumLines('build').length)).toEqual(cybermediumLines('build'));
      expect(commitToast.message).toMatch(/COMMITS \.+ 1\s/);
      expect(commitToast.message).toMatch(/PENDING \.+ clean/);
      expect(commitToast.variant).toBe('success');
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(SHEET_WIDTH);

      const startToasts = toasts(served.events).filter((toast) => toast.title === 'build: session start');
      expect(startToasts).toHaveLength(1);
      expect(startToasts[0]?.message).toContain(cybermediumLines('build')[0]);
    } finally {
      await served.kill();
    }
  });

  it('answers agent-status with the FIGlet name and the pending changes of the project', async () => {
    const repo = makeRepo(world.sandbox, 'status');
    fs.writeFileSync(path.join(repo, 'untracked-note.txt'), 'not committed\n');
    const run = await runOpencode(world.sandbox, repo, 'STATUS-TURN: show your sheet');
    expect(run.code).toBe(0);

    const outputs = run.stdout
      .split('\n')
      .flatMap((line) => {
        try {
          return stringsIn(JSON.parse(line));
        } catch {
          return [];
        }
      })
      .filter((text) => text.includes(':: build '));
    expect(outputs.length).toBeGreaterThan(0);
    const sheet = outputs[0] as string;
    for (const line of cybermediumLines('build')) expect(sheet).toContain(line);
    expect(sheet).toMatch(/PENDING \.+ 1 change\n/);
    expect(sheet).toContain('?? untracked-note.txt');
    // The models line, as `agent-tracker status` shows it.
    expect(sheet).toMatch(/MODELS \.+ fake\/fake-model\n/);
  });
});
