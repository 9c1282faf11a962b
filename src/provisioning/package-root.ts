/**
 * Where this package's shipped files are: the folder holding its package.json, `dist/`, `skills/`
 * and `agents/`. Compiled code lives in `dist/provisioning/`, sources in `src/provisioning/`, the bundled
 * plugin's and CLI's entries and chunks in `dist/opencode/` and `dist/cli/` (scripts/bundle-dist.mjs): all
 * two levels down.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's own name, as published and as written into the plugin folder. */
export const PACKAGE_NAME = 'opencode-agent-tracker';

/** The root folder of the package this code was loaded from. */
export function packageRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/** This package's version, from its package.json ("0.0.0" when it cannot be read). */
export function packageVersion(root: string = packageRoot()): string {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
