/** `package.json` (Node.js): npm dependency names; TypeScript when the project depends on it. */
import type { ManifestFacts } from './types.js';
import { keysOfTables, parseJsonObject } from './types.js';

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

/**
 * Parses package.json text. `hasTsconfig` tells whether a tsconfig.json sits next to it (a
 * TypeScript project may get its compiler from elsewhere, e.g. a monorepo root).
 */
export function parsePackageJson(text: string, hasTsconfig = false): ManifestFacts | undefined {
  const manifest = parseJsonObject(text);
  if (!manifest) return undefined;
  const dependencies = keysOfTables(manifest, DEPENDENCY_FIELDS);
  const typed = hasTsconfig || dependencies.includes('typescript') || typeof manifest.types === 'string';
  return { ecosystem: 'node', language: typed ? 'typescript' : 'javascript', dependencies };
}
