/**
 * Masks every tool's output before the model sees it: the text, the title and every string in the
 * metadata (bash keeps its own copy of the output there). Fails CLOSED: if masking fails, the
 * output is replaced by a short notice, never passed through.
 */
import type { SecretMasker } from '../../core/secrets/mask.js';

/** What `tool.execute.after` hands over and lets a plugin rewrite. */
export interface ToolOutput {
  title: string;
  output: string;
  metadata: unknown;
}

export const MASKING_FAILED_OUTPUT =
  '[agent-tracker] This output was withheld: it could not be checked for secrets from the project\'s .env files. Ask the user to look at it.';

const MAX_METADATA_DEPTH = 8;

function maskValue(value: unknown, mask: (text: string) => string, depth: number): unknown {
  if (typeof value === 'string') return mask(value);
  if (depth >= MAX_METADATA_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => maskValue(item, mask, depth + 1));
  const masked: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) masked[key] = maskValue(item, mask, depth + 1);
  return masked;
}

/** Rewrites the output in place; never throws. */
export async function maskToolOutput(output: ToolOutput, masker: () => Promise<SecretMasker>): Promise<void> {
  try {
    const active = await masker();
    if (active.values === 0) return;
    const text = output.output;
    const maskedText = typeof text === 'string' ? active.mask(text) : undefined;
    // bash keeps a copy of its output in the metadata: masked once.
    const mask = (value: string): string => (value === text && maskedText !== undefined ? maskedText : active.mask(value));
    if (maskedText !== undefined) output.output = maskedText;
    if (typeof output.title === 'string') output.title = mask(output.title);
    output.metadata = maskValue(output.metadata, mask, 0);
  } catch {
    output.output = MASKING_FAILED_OUTPUT;
    output.title = 'output withheld';
    output.metadata = {};
  }
}
