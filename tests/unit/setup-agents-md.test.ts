/**
 * The AGENTS.md section: created, appended, replaced in place, or left alone; the user's text
 * outside the markers never changes, whatever its line endings.
 */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { BEGIN_MARKER, END_MARKER, installAgentsMd, mergeSection, renderSection, TRACK_AGENTS_FILE } from '../../src/provisioning/agents-md.js';
import { createContext } from '../../src/provisioning/context.js';
import { ROOT } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const BODY = '# Scoring\n\n- Commit: +5 XP\n';
const NEW_BODY = '# Scoring\n\n- Commit: +6 XP\n';
const USER_BEFORE = '# My rules\n\nAlways answer in English.\n\n';
const USER_AFTER = '\n\n## More of mine\n\nRun the tests.\n';

describe('mergeSection', () => {
  it('creates the file with just the section', () => {
    expect(mergeSection(undefined, BODY)).toEqual({ text: `${BEGIN_MARKER}\n# Scoring\n\n- Commit: +5 XP\n${END_MARKER}\n`, action: 'created' });
  });

  it('appends after the user\'s text, separated by one blank line, whether or not it ends in a newline', () => {
    for (const existing of ['# Mine\n', '# Mine']) {
      const merged = mergeSection(existing, BODY);
      expect(merged.action).toBe('appended');
      expect(merged.text).toBe(`# Mine\n\n${renderSection(BODY)}\n`);
    }
    expect(mergeSection('', BODY).text).toBe(`${renderSection(BODY)}\n`);
  });

  it('replaces an older section in place and keeps every byte around it', () => {
    const existing = `${USER_BEFORE}${renderSection(BODY)}${USER_AFTER}`;
    const merged = mergeSection(existing, NEW_BODY);
    expect(merged).toEqual({ text: `${USER_BEFORE}${renderSection(NEW_BODY)}${USER_AFTER}`, action: 'replaced' });
  });

  it('recognises an older section by its marker names even when their wording changed', () => {
    const old = `<!-- BEGIN opencode-agent-tracker: old wording -->\nold\n<!-- END opencode-agent-tracker -->`;
    expect(mergeSection(`${USER_BEFORE}${old}${USER_AFTER}`, BODY).text).toBe(`${USER_BEFORE}${renderSection(BODY)}${USER_AFTER}`);
  });

  it('changes nothing when the section is current', () => {
    const existing = `${USER_BEFORE}${renderSection(BODY)}${USER_AFTER}`;
    expect(mergeSection(existing, BODY)).toEqual({ text: existing, action: 'unchanged' });
  });

  it("writes the section in the file's CRLF line endings", () => {
    const existing = `# Mine\r\n\r\n${renderSection(BODY, '\r\n')}\r\nafter\r\n`;
    expect(mergeSection(existing, BODY).action).toBe('unchanged');
    const merged = mergeSection(existing, NEW_BODY);
    expect(merged.text).toBe(`# Mine\r\n\r\n${renderSection(NEW_BODY, '\r\n')}\r\nafter\r\n`);
    expect(merged.text.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('refuses incomplete, reversed or repeated markers', () => {
    const broken = [
      `${BEGIN_MARKER}\nno end`,
      `no begin\n${END_MARKER}`,
      `${END_MARKER}\n${BEGIN_MARKER}`,
      `${renderSection(BODY)}\n${renderSection(BODY)}`,
    ];
    for (const text of broken) expect(() => mergeSection(text, BODY)).toThrow(/markers are incomplete, out of order or repeated/);
  });
});

describe('installAgentsMd', () => {
  const configFolder = useTempDirs('agent-tracker-agents-md-');
  const shipped = fs.readFileSync(path.join(ROOT, TRACK_AGENTS_FILE), 'utf8');

  it('puts the shipped rules between the markers, backing up the user\'s file once', () => {
    const dir = configFolder();
    const file = path.join(dir, 'AGENTS.md');
    const original = `${USER_BEFORE}${renderSection('old rules')}${USER_AFTER}`;
    fs.writeFileSync(file, original);
    const context = createContext(dir);
    expect(installAgentsMd(context, ROOT).status).toBe('changed');
    expect(fs.readFileSync(file, 'utf8')).toBe(`${USER_BEFORE}${renderSection(shipped)}${USER_AFTER}`);
    expect(fs.readFileSync(context.backups.get(file) as string, 'utf8')).toBe(original);
    expect(installAgentsMd(createContext(dir), ROOT).status).toBe('unchanged');
  });

  it('leaves a file with broken markers untouched and says how to fix it', () => {
    const dir = configFolder();
    const file = path.join(dir, 'AGENTS.md');
    fs.writeFileSync(file, `${USER_BEFORE}${BEGIN_MARKER}\nhalf a section`);
    expect(() => installAgentsMd(createContext(dir), ROOT)).toThrow(/left untouched\. Fix the markers/);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${USER_BEFORE}${BEGIN_MARKER}\nhalf a section`);
    expect(fs.readdirSync(dir)).toEqual(['AGENTS.md']);
  });
});
