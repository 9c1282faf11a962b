/** `go.mod` (Go): the module paths the project requires directly (`// indirect` ones are transitive). */
import type { ManifestFacts } from './types.js';
import { unique } from './types.js';

/** `module/path v1.2.3` with an optional trailing comment. */
const REQUIREMENT = /^("[^"]+"|\S+)\s+(v\S+)\s*(\/\/.*)?$/;

export function parseGoMod(text: string): ManifestFacts | undefined {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  if (!lines.some((line) => /^module\s+\S+/.test(line))) return undefined;
  const dependencies: string[] = [];
  let inRequireBlock = false;
  for (const line of lines) {
    let requirement: string | undefined;
    if (inRequireBlock) {
      if (line.startsWith(')')) {
        inRequireBlock = false;
        continue;
      }
      requirement = line;
    } else if (/^require\s*\($/.test(line)) {
      inRequireBlock = true;
      continue;
    } else if (line.startsWith('require ')) {
      requirement = line.slice('require '.length).trim();
    }
    const match = requirement ? REQUIREMENT.exec(requirement) : null;
    if (!match?.[1] || /\/\/\s*indirect\b/.test(match[3] ?? '')) continue;
    dependencies.push(match[1].replace(/^"|"$/g, ''));
  }
  return { ecosystem: 'go', language: 'go', dependencies: unique(dependencies) };
}
