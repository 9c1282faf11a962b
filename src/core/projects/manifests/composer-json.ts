/** `composer.json` (PHP): `vendor/package` names; the PHP runtime and extensions are not dependencies. */
import type { ManifestFacts } from './types.js';
import { keysOfTables, parseJsonObject } from './types.js';

/** `php`, `ext-json`, `lib-curl`, `composer-plugin-api`: platform requirements, not packages. */
const PLATFORM_PACKAGE = /^(php(-64bit)?|hhvm|ext-.+|lib-.+|composer(-plugin|-runtime)?-api)$/i;

export function parseComposerJson(text: string): ManifestFacts | undefined {
  const manifest = parseJsonObject(text);
  if (!manifest) return undefined;
  const dependencies = keysOfTables(manifest, ['require', 'require-dev'])
    .filter((name) => !PLATFORM_PACKAGE.test(name))
    .map((name) => name.toLowerCase());
  return { ecosystem: 'php', language: 'php', dependencies };
}
