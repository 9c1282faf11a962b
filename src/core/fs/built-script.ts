/**
 * A built script a module starts as a child process or a worker thread, found from that module. The
 * module runs from tsc's dist/ (the script beside it), from a bundle's chunk one or two folders away
 * (scripts/bundle-dist.mjs writes the plugin's chunks to dist/opencode/ and the CLI's to dist/cli/), or
 * from the TypeScript sources under jest, where the script is the built copy under dist/ (`npm run build`
 * must have run).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The first of `candidates` (paths relative to `moduleUrl`, the calling module's `import.meta.url`) that
 * exists; else the first one's copy under dist/ when the caller runs from src/.
 */
export function builtScript(moduleUrl: string, first: string, ...others: string[]): string {
  const files = [first, ...others].map((relative) => fileURLToPath(new URL(relative, moduleUrl)));
  return files.find((file) => fs.existsSync(file)) ?? fileURLToPath(new URL(first, moduleUrl)).replace(`${path.sep}src${path.sep}`, `${path.sep}dist${path.sep}`);
}
