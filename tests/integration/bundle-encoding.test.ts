/**
 * The recommend-setup tool printed "â" for "—": Bun, which runs the plugin inside OpenCode, decodes a
 * file marked `// @bun` as Latin-1 unless it is pure ASCII. The bundle (scripts/bundle-dist.mjs)
 * writes every non-ASCII character as an escape. Needs `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
// @ts-expect-error a build script in plain JavaScript, without type declarations
import { asciiSource } from '../../scripts/ascii-source.mjs';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BUNDLE_DIR = path.join(ROOT, 'dist', 'opencode');
const OPENCODE_BIN = path.join(ROOT, 'node_modules', '.bin', 'opencode');
const TEXT = 'pick — runner-up · 80 % ≥ 0.5 😀';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-bundle-encoding-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** What Bun reads from a `// @bun` module whose source is `source`. */
function readUnderBun(source: string): string {
  const module = path.join(dir, `m${Math.random().toString(36).slice(2)}.js`);
  fs.writeFileSync(module, source);
  const script = path.join(dir, 'read.mjs');
  fs.writeFileSync(script, `const { text } = await import(${JSON.stringify(module)}); console.log(JSON.stringify(text));\n`);
  const result = spawnSync(OPENCODE_BIN, [script], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, BUN_BE_BUN: '1' }, encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(result.stdout.trim()) as string;
}

describe('the bundle under Bun', () => {
  it('keeps "—" and other non-ASCII text as written once escaped (and mangles it otherwise)', () => {
    const source = `// @bun\nexport const text = ${JSON.stringify(TEXT)};\n`;
    expect(readUnderBun(asciiSource(source) as string)).toBe(TEXT);
    expect(readUnderBun(source)).not.toBe(TEXT);
  });

  it('is pure ASCII in every file Bun takes as already transpiled', () => {
    const marked = fs.readdirSync(BUNDLE_DIR).filter((file) => file.endsWith('.js') && fs.readFileSync(path.join(BUNDLE_DIR, file), 'utf8').startsWith('// @bun'));
    expect(marked).toContain('plugin.js');
    for (const file of marked) {
      const offending = fs.readFileSync(path.join(BUNDLE_DIR, file), 'utf8').match(/[\u0080-\uffff]/);
      expect([file, offending?.[0]]).toEqual([file, undefined]);
    }
  });
});
