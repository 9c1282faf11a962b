/**
 * How to start a JavaScript child process from wherever the tracker runs: under Node it is
 * `process.execPath`; inside OpenCode's single-file Bun binary, `process.execPath` is the `opencode`
 * binary itself, which behaves as plain `bun` when BUN_BE_BUN=1 is set (checked with opencode
 * 1.18.33, Bun 1.3.14); under Electron (OpenCode Desktop) ELECTRON_RUN_AS_NODE=1 does the same.
 * Only argv arrays, never a shell.
 */
import { builtScript } from '../fs/built-script.js';

export interface ChildRuntime {
  command: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The environment of a child that reads and writes local files only (the check, the salvage, the
 * history import): without NODE_EXTRA_CA_CERTS, which Node 20 reads and parses at every start before
 * any script runs (70-80 ms of CPU for a system bundle of 144 certificates), never for TLS here.
 */
function localFilesEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** The command and environment that run a .js file with the runtime this process runs on. */
export function childRuntime(): ChildRuntime {
  if (process.versions.bun) return { command: process.execPath, env: localFilesEnv({ BUN_BE_BUN: '1' }) };
  if (process.versions.electron) return { command: process.execPath, env: localFilesEnv({ ELECTRON_RUN_AS_NODE: '1' }) };
  return { command: process.execPath, env: localFilesEnv() };
}

/** The built child script: beside this module in tsc's dist/core/store/, that same file from a bundle's chunks in dist/opencode/ or dist/cli/. */
export function childScript(): string {
  return builtScript(import.meta.url, './verify-child.js', '../core/store/verify-child.js');
}
