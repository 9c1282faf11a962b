/** `Cargo.toml` (Rust): crate names from every dependency table, including workspace and target ones. */
import { parseTomlObject } from './toml.js';
import type { ManifestFacts } from './types.js';
import { isTable, keysOfTables, unique } from './types.js';

const DEPENDENCY_TABLES = ['dependencies', 'dev-dependencies', 'build-dependencies'] as const;

export function parseCargoToml(text: string): ManifestFacts | undefined {
  const manifest = parseTomlObject(text);
  if (!manifest) return undefined;
  const dependencies = keysOfTables(manifest, DEPENDENCY_TABLES);
  if (isTable(manifest.workspace)) dependencies.push(...keysOfTables(manifest.workspace, ['dependencies']));
  // [target.'cfg(unix)'.dependencies] and the like
  if (isTable(manifest.target)) {
    for (const target of Object.values(manifest.target)) {
      if (isTable(target)) dependencies.push(...keysOfTables(target, DEPENDENCY_TABLES));
    }
  }
  return { ecosystem: 'rust', language: 'rust', dependencies: unique(dependencies) };
}
