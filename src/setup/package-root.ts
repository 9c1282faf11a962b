/**
 * Where this package's shipped files are: the folder holding its package.json, `dist/`, `skills/`
 * and `agents/`. Compiled code lives in `dist/setup/`, sources in `src/setup/`: both two levels down.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's own name, as published and as written into the plugin folder. */
export const PACKAGE_NAME = 'opencode-agent-tracker';

/** The root folder of the package this code was loaded from. */
export function packageRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
}
