/**
 * Masks what OpenCode puts in the system prompt (AGENTS.md, instruction files): an agent can
 * append an env file to AGENTS.md, and every later request would carry its values. Runs in the
 * host's `experimental.chat.system.transform` hook, which hands over the prompt's parts as an array
 * the host keeps using: rewritten in place. Fails CLOSED: a part that cannot be checked is replaced
 * by a one-line notice.
 */
import type { SecretMasker } from '../../core/secrets/mask.js';

/** What `experimental.chat.system.transform` hands over and lets a plugin rewrite. */
export interface SystemPrompt {
  system: string[];
}

export const SYSTEM_WITHHELD_NOTICE =
  '[agent-tracker] Part of the system prompt was withheld: it could not be checked for secrets from the project\'s .env files.';

function maskParts(output: SystemPrompt, active: SecretMasker): void {
  const parts = output.system;
  try {
    if (active.values === 0) return;
    for (let i = 0; i < parts.length; i += 1) {
      const part = parts[i];
      if (typeof part === 'string') parts[i] = active.mask(part);
    }
  } catch {
    withhold(output);
  }
}

function withhold(output: SystemPrompt): void {
  const parts = output.system;
  if (!Array.isArray(parts)) return;
  for (let i = 0; i < parts.length; i += 1) parts[i] = SYSTEM_WITHHELD_NOTICE;
}

/** Rewrites the system prompt's parts in place; never throws. A promise only while the first scan for env files runs. */
export function maskSystemPrompt(output: SystemPrompt, masker: () => SecretMasker | Promise<SecretMasker>): void | Promise<void> {
  let active: SecretMasker | Promise<SecretMasker>;
  try {
    active = masker();
  } catch {
    withhold(output);
    return undefined;
  }
  if (!(active instanceof Promise)) return maskParts(output, active);
  return active.then(
    (ready) => maskParts(output, ready),
    () => withhold(output),
  );
}
