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

/** The value with every string masked; an object or array is copied only where a string in it changed. */
function maskValue(value: unknown, mask: (text: string) => string, depth: number): unknown {
  if (typeof value === 'string') return mask(value);
  if (depth >= MAX_METADATA_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      const masked = maskValue(item, mask, depth + 1);
      if (masked !== item) (copy ??= value.slice())[i] = masked;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const masked = maskValue(item, mask, depth + 1);
    if (masked !== item) (copy ??= { ...record })[key] = masked;
  }
  return copy ?? value;
}

function withhold(output: ToolOutput): void {
  output.output = MASKING_FAILED_OUTPUT;
  output.title = 'output withheld';
  output.metadata = {};
}

function maskWith(output: ToolOutput, active: SecretMasker): void {
  try {
    if (active.values === 0) return;
    const text = output.output;
    const maskedText = typeof text === 'string' ? active.mask(text) : undefined;
    // bash keeps a copy of its output in the metadata: masked once.
    const mask = (value: string): string => (value === text && maskedText !== undefined ? maskedText : active.mask(value));
    if (maskedText !== undefined) output.output = maskedText;
    if (typeof output.title === 'string') output.title = mask(output.title);
    output.metadata = maskValue(output.metadata, mask, 0);
  } catch {
    withhold(output);
  }
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown }).then === 'function';
}

/**
 * Rewrites the output in place; never throws. Synchronous when the masker is at hand (a promise
 * only while the first scan for env files runs), so the hook waits for nothing it need not.
 */
export function maskToolOutput(output: ToolOutput, masker: () => SecretMasker | Promise<SecretMasker>): void | Promise<void> {
  let active: SecretMasker | Promise<SecretMasker>;
  try {
    active = masker();
  } catch {
    withhold(output);
    return undefined;
  }
  if (!isPromise(active)) return maskWith(output, active);
  return active.then(
    (ready) => maskWith(output, ready),
    () => withhold(output),
  );
}
