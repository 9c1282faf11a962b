/**
 * The CLI users start, dist/cli/main.js, is a bundle of our own code (scripts/bundle-dist.mjs): one
 * entry and the chunks it imports, npm packages external. What it starts must still be found from it:
 * the out-of-process check of a database that changed since it was last verified
 * (dist/core/store/verify-child.js). The backfill's worker thread from the bundle is driven by the
 * backfill tests, which run this same entry. Needs `npm run build` first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CLI, cliJson, makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox, StatusJson } from '../helpers/sandbox.js';

jest.setTimeout(60_000);

let sandbox: Sandbox;
beforeAll(() => {
  sandbox = makeSandbox('agent-tracker-built-cli-');
});
afterAll(() => removeSandbox(sandbox));

describe('the built CLI entry', () => {
  it("is the bundle: a Node script importing its chunks beside it, without the Bun pragma of the plugin's bundle", () => {
    const text = fs.readFileSync(CLI, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(text).not.toContain('// @bun');
    const imported = [...text.matchAll(/from\s*"(\.\/chunk-[^"]+\.js)"/g)].map((match) => match[1] ?? '');
    expect(imported.length).toBeGreaterThan(0);
    for (const chunk of imported) expect(fs.existsSync(path.join(path.dirname(CLI), chunk))).toBe(true);
  });

  it('checks a database that changed since its last check out of process, then answers from it', () => {
    const db = path.join(sandbox.root, 'tracker.lmdb');
    // init-project makes the database (the project's profile): a file written since no check has seen it.
    expect(runCli(sandbox, ['init-project', sandbox.root, '--db', db]).code).toBe(0);
    const sidecar = `${db}.verified`;
    fs.rmSync(sidecar, { force: true });
    const status = cliJson<StatusJson>(sandbox, ['status', '--db', db]);
    expect(status.agents).toEqual([]);
    expect(fs.existsSync(sidecar)).toBe(true);
  });
});
