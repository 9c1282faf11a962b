/** What one manifest family tells about a project, before frameworks are looked up. */

/** The manifest families, in the order the classifier tries them. */
export type Ecosystem = 'node' | 'php' | 'rust' | 'python' | 'go' | 'jvm' | 'ruby';

/** The facts a manifest parser read from one file. */
export interface ManifestFacts {
  ecosystem: Ecosystem;
  language: string;
  /** Dependency names as the ecosystem spells them (npm names, `vendor/package`, `group:artifact`, module paths). */
  dependencies: string[];
}

/**
 * Parses one manifest's text. Returns undefined when the text is not a usable manifest (malformed
 * JSON/TOML/XML, wrong shape): the classifier then treats the file as absent.
 */
export type ManifestParser = (text: string) => ManifestFacts | undefined;

/** Whether a value is a plain object (a JSON/TOML table). */
export function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON manifest's top-level object, or undefined when the text is not JSON or not an object. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isTable(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The keys of the tables found at `names` in `source`, in order, without repeats. */
export function keysOfTables(source: Record<string, unknown>, names: readonly string[]): string[] {
  const keys: string[] = [];
  for (const name of names) {
    const table = source[name];
    if (isTable(table)) keys.push(...Object.keys(table));
  }
  return unique(keys);
}

/** Values without repeats, first occurrence kept. */
export function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
