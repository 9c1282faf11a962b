/**
 * Masks every tool's output before the model sees it, whatever shape the host hands over:
 * the text, the title and every string in the metadata (bash keeps its own copy of the output
 * there); the raw result of an MCP tool (`content` items of text, images and resources, and
 * `structuredContent`); and attachments (`read` of a PDF or image returns its bytes as a base64
 * data URL), which are dropped with a notice when their decoded bytes carry a secret. Fails CLOSED:
 * if masking fails, the output is replaced by a short notice, never passed through.
 */
import type { TextMasker } from '../../core/secrets/mask.js';

/** What `tool.execute.after` hands over and lets a plugin rewrite (an MCP tool's raw result has other fields). */
export interface ToolOutput {
  title: string;
  output: string;
  metadata: unknown;
}

export const MASKING_FAILED_OUTPUT =
  '[agent-tracker] This output was withheld: it could not be checked for secrets from the project\'s .env files. Ask the user to look at it.';

/** Put in place of an attachment or binary MCP item whose bytes hold a secret. */
export const BINARY_WITHHELD_NOTICE =
  '[agent-tracker] An attachment was withheld: its content holds a secret from the project\'s .env files.';

/** Past this depth a value is checked as a whole (serialised) instead of string by string. */
const MAX_METADATA_DEPTH = 8;
/** A data URL: its media type, whether it is base64, and its data. */
const DATA_URL = /^data:([^,]*?)(;base64)?,([\s\S]*)$/i;

type Mask = (text: string) => string;

/** The value with every string masked; an object or array is copied only where a string in it changed. */
function maskValue(value: unknown, mask: Mask, depth: number): unknown {
  if (typeof value === 'string') return mask(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_METADATA_DEPTH) {
    // Too deep to walk: checked whole (a cycle throws, and the caller withholds the output).
    const serialised = JSON.stringify(value);
    return serialised !== undefined && mask(serialised) !== serialised ? MASKING_FAILED_OUTPUT : value;
  }
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

/** Whether base64 data (an attachment, an MCP image or blob) holds a secret: decoded, as text, and as it stands. */
function base64Carries(data: string, active: TextMasker): boolean {
  if (active.finds(data)) return true;
  const bytes = Buffer.from(data, 'base64');
  return active.finds(bytes.toString('utf8')) || active.finds(bytes.toString('latin1'));
}

/** Whether a URL's content holds a secret: a data URL decoded, any other URL as text. */
function urlCarries(url: string, active: TextMasker): boolean {
  const data = DATA_URL.exec(url);
  if (!data) return active.finds(url);
  const body = data[3] as string;
  if (data[2]) return base64Carries(body, active);
  let decoded = body;
  try {
    decoded = decodeURIComponent(body);
  } catch {
    // A malformed escape: the body is checked as it stands.
  }
  return active.finds(body) || active.finds(decoded);
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The host's attachments without those that carry a secret, and how many were dropped. */
function screenAttachments(attachments: unknown[], active: TextMasker, mask: Mask): { kept: unknown[]; dropped: number } {
  const kept: unknown[] = [];
  for (const attachment of attachments) {
    const url = record(attachment)?.url;
    if (typeof url === 'string' && urlCarries(url, active)) continue;
    kept.push(typeof url === 'string' ? attachment : maskValue(attachment, mask, 1));
  }
  return { kept, dropped: attachments.length - kept.length };
}

/** An MCP `content` item masked: text and resource text masked, images and blobs that carry a secret replaced by a notice. */
function maskContentItem(item: unknown, active: TextMasker, mask: Mask): unknown {
  const fields = record(item);
  if (!fields) return maskValue(item, mask, 1);
  if (typeof fields.data === 'string' && base64Carries(fields.data, active)) return { type: 'text', text: BINARY_WITHHELD_NOTICE };
  const resource = record(fields.resource);
  if (resource && typeof resource.blob === 'string' && base64Carries(resource.blob, active)) return { type: 'text', text: BINARY_WITHHELD_NOTICE };
  // Base64 fields were checked above: masking them in place would only corrupt clean bytes.
  const { data, ...rest } = fields;
  const masked = maskValue(rest, mask, 1) as Record<string, unknown>;
  return data === undefined ? masked : { ...masked, data };
}

/** Replaces an output (or a tool part's state) by the one-line notice: what fail-closed means here. */
export function withhold(output: ToolOutput): void {
  const fields = output as unknown as Record<string, unknown>;
  output.output = MASKING_FAILED_OUTPUT;
  output.title = 'output withheld';
  output.metadata = {};
  if ('content' in fields) fields.content = [{ type: 'text', text: MASKING_FAILED_OUTPUT }];
  if (typeof fields.error === 'string') fields.error = MASKING_FAILED_OUTPUT;
  delete fields.attachments;
  delete fields.structuredContent;
}

/** Masks one output (or a stored tool part's state) in place with a ready masker; withholds it if that fails. */
export function maskWith(output: ToolOutput, active: TextMasker): void {
  try {
    if (active.values === 0) return;
    const fields = output as unknown as Record<string, unknown>;
    const text = fields.output;
    const maskedText = typeof text === 'string' ? active.mask(text) : undefined;
    // bash keeps a copy of its output in the metadata: masked once.
    const mask: Mask = (value) => (value === text && maskedText !== undefined ? maskedText : active.mask(value));
    let dropped = 0;
    for (const key of Object.keys(fields)) {
      const value = fields[key];
      if (key === 'output' && maskedText !== undefined) fields.output = maskedText;
      else if (key === 'attachments' && Array.isArray(value)) {
        const screened = screenAttachments(value, active, mask);
        dropped += screened.dropped;
        if (screened.dropped > 0) fields.attachments = screened.kept;
      } else if (key === 'content' && Array.isArray(value)) {
        fields.content = value.map((item: unknown) => maskContentItem(item, active, mask));
      } else fields[key] = maskValue(value, mask, 0);
    }
    if (dropped > 0) {
      if (typeof fields.output === 'string') fields.output = `${fields.output}\n${BINARY_WITHHELD_NOTICE}`;
      else fields.output = BINARY_WITHHELD_NOTICE;
    }
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
export function maskToolOutput(output: ToolOutput, masker: () => TextMasker | Promise<TextMasker>): void | Promise<void> {
  let active: TextMasker | Promise<TextMasker>;
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
