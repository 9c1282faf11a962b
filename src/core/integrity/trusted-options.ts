/**
 * Which plugin options the tracker honours. Options that restrain agents are honoured only from
 * what the user owns (the global OpenCode config, the environment); OpenCode hands the plugin
 * options merged with project configs, which an agent can edit, so the restraining ones are
 * compared with the user's own and a differing value is ignored.
 */

/** Options that exist to restrain the agents being judged (or to move or size their record). */
export const RESTRAINING_OPTIONS = ['haltBlocksTools', 'rules', 'databasePath', 'maxDatabaseSize', 'protectEnvFiles'] as const;

export interface TrustedOptions {
  /** The options to resolve settings from. */
  options: Record<string, unknown>;
  /** Restraining keys whose merged value differs from the user's own: ignored. */
  ignored: string[];
}

/** Order-independent JSON for comparing option values. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/**
 * The merged options with every restraining key taken from the user's own options (`owned`):
 * absent there means absent (the default), whatever a project file says.
 */
export function trustedOptions(merged: Record<string, unknown>, owned: Record<string, unknown>): TrustedOptions {
  const options: Record<string, unknown> = { ...merged };
  const ignored: string[] = [];
  for (const key of RESTRAINING_OPTIONS) {
    if (canonical(merged[key]) === canonical(owned[key])) continue;
    ignored.push(key);
    if (owned[key] === undefined) delete options[key];
    else options[key] = owned[key];
  }
  return { options, ignored };
}
