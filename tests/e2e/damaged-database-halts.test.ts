/**
 * A database file an agent's shell damaged on purpose opens as an empty record until the user runs
 * `agent-tracker repair`: a halted agent used to work on meanwhile. The halts last written are kept
 * beside the database, and hold while it cannot be read. The real `opencode` binary, driven by the
 * loopback fake model; the damage is junk written over pages of the file, as `dd conv=notrunc` would.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { knownHaltsPath } from '../../src/core/store/known-halts.js';
import { bash, call, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { cliJson, makeRepo, makeSandbox, removeSandbox, runOpencode, toolParts, writeGlobalConfig } from '../helpers/sandbox.js';
import type { RunResult, Sandbox, StatusJson } from '../helpers/sandbox.js';

jest.setTimeout(400_000);

const PAGE = 4096;

/** Junk over every third page after the first two (the meta pages), as an agent's `dd` would write it. */
function damage(file: string): void {
  const size = fs.statSync(file).size;
  const fd = fs.openSync(file, 'r+');
  try {
    const junk = Buffer.alloc(PAGE, 0xa5);
    for (let offset = 2 * PAGE; offset < size; offset += 3 * PAGE) fs.writeSync(fd, junk, 0, PAGE, offset);
  } finally {
    fs.closeSync(fd);
  }
}

describe('a halted agent while the database is damaged', () => {
  let sandbox: Sandbox;
  let model: FakeModel;
  let next: RunResult;

  beforeAll(async () => {
    sandbox = makeSandbox('agent-tracker-damaged-halts-');
    model = await startFakeModel(
      scriptByPrompt({
        'WORK-TURN': [bash('echo feature > feature.txt && git add feature.txt && git commit -q -m "feat: add feature"'), call('report-bug', { description: 'broke the build' }), say('Done.')],
        'NEXT-TURN': [bash('echo still-working'), say('Done.')],
      }),
      { lifetimeMs: 380_000, maxRequests: 100 },
    );
    writeGlobalConfig(sandbox, { modelUrl: model.url });
    const repo = makeRepo(sandbox, 'damaged');
    expect((await runOpencode(sandbox, repo, 'WORK-TURN: add a feature')).code).toBe(0);
    expect(cliJson<StatusJson>(sandbox, ['status']).agents).toEqual([expect.objectContaining({ id: 'build', halted: true })]);
    damage(sandbox.dbPath);
    next = await runOpencode(sandbox, repo, 'NEXT-TURN: keep going');
  });

  afterAll(async () => {
    await model?.close();
    if (sandbox) removeSandbox(sandbox);
  });

  it('keeps the halt beside the database', () => {
    expect(JSON.parse(fs.readFileSync(knownHaltsPath(sandbox.dbPath), 'utf8'))).toEqual({ halted: ['build'] });
  });

  it('refuses the halted agent\'s tool calls, naming the revive, while the file cannot be read', () => {
    expect(next.code).toBe(0);
    expect(`${next.stdout}\n${next.stderr}`).toMatch(/is damaged/);
    const [call0] = toolParts(next).filter((part) => part.tool === 'bash');
    expect(call0?.state.status).toBe('error');
    expect(call0?.state.error).toMatch(/agent-tracker revive build/);
  });
});
