/**
 * Which config shape the user's OpenCode reads: version 1 (`"plugin": [[spec, options]]`, `"agent"`)
 * or version 2 (`"plugins": [{ package, options }]`, `"agents"`). The OpenCode on PATH decides when
 * there is one (it is what reads the file); else the keys the config file already has; else version
 * 1, the default. One shape is written, never both.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type ConfigShape = 'v1' | 'v2';

export interface ShapeDecision {
  shape: ConfigShape;
  /** Why, in words for setup's report. */
  because: string;
}

/** How long `opencode --version` may take (a cold start of the compiled binary). */
const VERSION_TIMEOUT_MS = 10_000;
/** Keys only one shape has. */
const V2_KEYS = ['plugins', 'agents'] as const;
const V1_KEYS = ['plugin', 'agent'] as const;

/** The shape a parsed config already uses; undefined when it uses neither (or both). */
export function shapeOfConfig(config: Record<string, unknown>): ConfigShape | undefined {
  const v2 = V2_KEYS.some((key) => key in config);
  const v1 = V1_KEYS.some((key) => key in config);
  return v2 === v1 ? undefined : v2 ? 'v2' : 'v1';
}

/** The `opencode` executable on `env.PATH`, if any. */
export function opencodeOnPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const names = process.platform === 'win32' ? ['opencode.exe', 'opencode.cmd'] : ['opencode'];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      const candidate = path.join(dir, name);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        if (fs.statSync(candidate).isFile()) return candidate;
      } catch {
        // Not here.
      }
    }
  }
  return undefined;
}

/** The major version `opencode --version` prints (`1.18.33`, `2.0.25`); undefined when it cannot tell. */
export function opencodeMajorVersion(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const binary = opencodeOnPath(env);
  if (!binary) return undefined;
  try {
    const printed = execFileSync(binary, ['--version'], { env, encoding: 'utf8', timeout: VERSION_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'ignore'] });
    const match = /(\d+)\.\d+\.\d+/.exec(printed);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The shape to write into `config`, from the OpenCode on PATH (`major`) and the file itself. */
export function decideShape(config: Record<string, unknown>, major: number | undefined): ShapeDecision {
  const inFile = shapeOfConfig(config);
  if (major !== undefined && major >= 2) return { shape: 'v2', because: `opencode --version says ${major}.x` };
  if (major === 1) return { shape: 'v1', because: 'opencode --version says 1.x' };
  if (inFile) return { shape: inFile, because: `the config already uses the version-${inFile === 'v2' ? 2 : 1} keys` };
  return { shape: 'v1', because: 'no OpenCode on PATH and nothing in the config says otherwise (version 1, the default)' };
}
