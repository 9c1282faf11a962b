/** `Gemfile` (Ruby): the names of `gem "name"` lines (Bundler's DSL is Ruby; one line per gem is the norm). */
import type { ManifestFacts } from './types.js';
import { unique } from './types.js';

/** `gem 'rails', '~> 7.1'` or `gem("puma")`, indented inside `group` blocks or not. */
const GEM_LINE = /^\s*gem\s*\(?\s*(['"])([A-Za-z0-9._-]+)\1/;

export function parseGemfile(text: string): ManifestFacts | undefined {
  const dependencies: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = GEM_LINE.exec(line);
    if (match?.[2]) dependencies.push(match[2].toLowerCase());
  }
  return { ecosystem: 'ruby', language: 'ruby', dependencies: unique(dependencies) };
}
