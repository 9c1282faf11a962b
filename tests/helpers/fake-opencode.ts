/**
 * The usual setting of an end-to-end test file: one sandbox (so OpenCode prepares its config folder
 * once), one fake model answering from `scripts`, and the global config that joins them. Call it at
 * the top of a describe block; it is set up before the block's tests and removed after them.
 */
import { afterAll, beforeAll } from '@jest/globals';
import { scriptByPrompt, startFakeModel } from './fake-model.js';
import type { FakeModel, Step } from './fake-model.js';
import { makeSandbox, removeSandbox, writeGlobalConfig } from './sandbox.js';
import type { Sandbox } from './sandbox.js';

export interface FakeOpencode {
  readonly sandbox: Sandbox;
  readonly model: FakeModel;
}

export function useFakeOpencode(scripts: Record<string, Step[]>): FakeOpencode {
  let sandbox: Sandbox | undefined;
  let model: FakeModel | undefined;
  beforeAll(async () => {
    sandbox = makeSandbox();
    model = await startFakeModel(scriptByPrompt(scripts));
    writeGlobalConfig(sandbox, { modelUrl: model.url });
  });
  afterAll(async () => {
    await model?.close();
    if (sandbox) removeSandbox(sandbox);
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useFakeOpencode is read before its beforeAll ran');
    return value;
  };
  return {
    get sandbox() {
      return ready(sandbox);
    },
    get model() {
      return ready(model);
    },
  };
}
