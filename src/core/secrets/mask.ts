/**
 * Output masking, as CI systems mask secrets in logs: every known secret value (and its base64 and
 * URL-encoded forms) is replaced by `[masked: KEY from FILE]` wherever it appears, whatever command
 * printed it. Pure and fast: one pass over the text with a rolling hash of the shortest form's
 * length, so 1 MiB of output against hundreds of values costs a few milliseconds.
 */

/** Which values are masked. Named so users and tests can see the rule. */
export const MASKING_RULES = {
  /** Values shorter than this are not masked: they occur everywhere by chance and would garble output. */
  minValueLength: 6,
  /** Encoded forms shorter than this are not searched for (a short base64 run matches by chance). */
  minFormLength: 8,
} as const;

/** Values that are settings, not secrets: booleans, switches and environment names. */
const PLAIN_WORDS = /^(true|false|yes|no|on|off|null|none|nil|undefined|enabled|disabled|development|production|staging|test|debug|info|warn|error)$/i;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;
/** A URL to this machine without credentials in it (one with `user:pass@` is a secret). */
const LOCAL_URL = /^[a-z][a-z0-9+.-]*:\/\/(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(:\d+)?([/?#][^@\s]*)?$/i;

export interface SecretSource {
  key: string;
  value: string;
  /** The env file it came from, as the user names it (`.env`, `api/.env.local`). */
  file: string;
  /** The value as written in the file, when it differs (a double-quoted value with `\n` escapes). */
  written?: string;
}

/** The armour lines of a PEM block: the same in every key, so not secret, and common in code. */
const PEM_ARMOUR = /^-----(BEGIN|END) [A-Z0-9 ]+-----$/;

/** The value as it appears inside a JSON string: `"` and `\` escaped, control characters as `\n`. */
function jsonEscaped(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

/** A value's forms plus its JSON-escaped form (what a tool printing JSON shows). */
function formsWithJson(value: string): string[] {
  const escaped = jsonEscaped(value);
  return escaped === value ? secretForms(value) : [...secretForms(value), escaped];
}

/**
 * Every text that gives a source's value away: the value in every encoding, its JSON-escaped form,
 * the form written in the file, and each line of a multi-line value (grep and sed print single
 * lines) in the same encodings. Empty when the rule masks nothing of it.
 */
export function sourceForms(source: SecretSource): string[] {
  const value = source.value.trim();
  const forms: string[] = [];
  if (isMaskable(value)) {
    forms.push(...formsWithJson(value));
    const written = source.written?.trim();
    if (written !== undefined && written !== value && written.length >= MASKING_RULES.minValueLength) forms.push(written);
  }
  if (/[\r\n]/.test(value)) {
    for (const line of value.split(/\r\n|\r|\n/)) {
      const trimmed = line.trim();
      if (isMaskable(trimmed) && !PEM_ARMOUR.test(trimmed)) forms.push(...formsWithJson(trimmed));
    }
  }
  return forms;
}

/** Whether a value is masked by the rules above. */
export function isMaskable(value: string): boolean {
  const trimmed = value.trim();
  if (trimmed.length < MASKING_RULES.minValueLength) return false;
  return !PLAIN_WORDS.test(trimmed) && !NUMBER.test(trimmed) && !LOCAL_URL.test(trimmed);
}

/**
 * The base64 text that stands for `bytes` wherever they sit in a longer input: the characters of
 * the base64 groups made only of the value's bytes, for each of the three alignments.
 */
function base64Interiors(bytes: Buffer): string[] {
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const firstGroup = Math.ceil(offset / 3);
    const endGroup = Math.floor((offset + bytes.length) / 3);
    if (endGroup > firstGroup) forms.push(encoded.slice(4 * firstGroup, 4 * endGroup));
  }
  // The whole value encoded on its own, padding included.
  forms.push(bytes.toString('base64'));
  return forms;
}

/** The value and the encoded forms it can be printed in: base64 (standard and URL-safe), URL-encoded. */
export function secretForms(value: string): string[] {
  const forms = new Set<string>([value]);
  for (const form of base64Interiors(Buffer.from(value, 'utf8'))) {
    forms.add(form);
    forms.add(form.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
  }
  forms.add(encodeURIComponent(value));
  return [...forms].filter((form) => form === value || form.length >= MASKING_RULES.minFormLength);
}

/** What the output guards need of a masker: a SecretMasker, or several applied in turn. */
export interface TextMasker {
  /** How many values it masks (0: nothing to do). */
  readonly values: number;
  mask(text: string): string;
  finds(text: string): boolean;
}

interface Needle {
  text: string;
  label: string;
}

/** A needle whose `offset`-th character starts the q-gram it is filed under. */
interface Anchor {
  needle: Needle;
  offset: number;
}

/** Length of the grams the scan looks up; every form is at least MASKING_RULES.minFormLength long. */
const GRAM = 4;
const HASH_PRIME = 0x01000193;
/**
 * The filter in front of the anchor table: one bit per slot, 32 slots per anchor (about 3% false
 * hits), within these bounds. Small enough to stay in the CPU cache, so a scan right after other
 * work (the first tool output after a flush) does not wait on memory for every position.
 */
const FILTER_BITS_PER_ANCHOR = 32;
const MIN_FILTER_BITS = 1 << 10;
const MAX_FILTER_BITS = 1 << 20;

function slot(hash: number, mask: number): number {
  return (hash ^ (hash >>> 16)) & mask;
}

function gramHash(text: string, at: number): number {
  let hash = 0;
  for (let i = 0; i < GRAM; i += 1) hash = (Math.imul(hash, HASH_PRIME) + text.charCodeAt(at + i)) | 0;
  return hash;
}

/**
 * Masks a fixed set of secrets; build one per set of env files. The scan looks at every `stride`-th
 * position only: each form is at least `window` characters long, so any occurrence holds a gram that
 * starts at such a position, at an offset below `stride` from the occurrence's start. Grams of every
 * form at those offsets are filed in a hash table; a hit is verified with `startsWith`.
 */
export class SecretMasker implements TextMasker {
  readonly values: number;
  private readonly stride: number;
  private readonly anchors = new Map<number, Anchor[]>();
  /** A bit per slot: set when some anchor's gram hashes there (a clear bit needs no table lookup). */
  private readonly filter: Uint32Array;
  private readonly filterMask: number;

  constructor(sources: readonly SecretSource[]) {
    const needles = new Map<string, Needle>();
    let values = 0;
    for (const source of sources) {
      const forms = sourceForms(source);
      if (forms.length === 0) continue;
      values += 1;
      const label = `[masked: ${source.key} from ${source.file}]`;
      for (const text of forms) if (!needles.has(text)) needles.set(text, { text, label });
    }
    this.values = values;
    const window = needles.size === 0 ? 0 : Math.min(...[...needles.values()].map((needle) => needle.text.length));
    this.stride = Math.max(1, window - GRAM + 1);
    for (const needle of needles.values()) {
      for (let offset = 0; offset < this.stride; offset += 1) {
        const hash = gramHash(needle.text, offset);
        const bucket = this.anchors.get(hash);
        if (bucket) bucket.push({ needle, offset });
        else this.anchors.set(hash, [{ needle, offset }]);
      }
    }
    let bits = MIN_FILTER_BITS;
    while (bits < MAX_FILTER_BITS && bits < this.anchors.size * FILTER_BITS_PER_ANCHOR) bits *= 2;
    this.filter = new Uint32Array(bits / 32);
    this.filterMask = bits - 1;
    for (const hash of this.anchors.keys()) {
      const at = slot(hash, this.filterMask);
      this.filter[at >>> 5] = (this.filter[at >>> 5] as number) | (1 << (at & 31));
    }
  }

  /** Whether the text holds any secret form (an attachment's decoded bytes, say). */
  finds(text: string): boolean {
    return this.mask(text) !== text;
  }

  /** The text with every secret form replaced (leftmost first, the longest form at a place). */
  mask(text: string): string {
    if (this.values === 0 || text.length < GRAM) return text;
    const found: { start: number; needle: Needle }[] = [];
    const last = text.length - GRAM;
    for (let at = 0; at <= last; at += this.stride) {
      const hash = gramHash(text, at);
      const bit = slot(hash, this.filterMask);
      if (((this.filter[bit >>> 5] as number) & (1 << (bit & 31))) === 0) continue;
      for (const { needle, offset } of this.anchors.get(hash) ?? []) {
        const start = at - offset;
        if (start >= 0 && text.startsWith(needle.text, start)) found.push({ start, needle });
      }
    }
    if (found.length === 0) return text;
    found.sort((a, b) => a.start - b.start || b.needle.text.length - a.needle.text.length);
    const parts: string[] = [];
    let copiedUpTo = 0;
    for (const { start, needle } of found) {
      if (start < copiedUpTo) continue;
      parts.push(text.slice(copiedUpTo, start), needle.label);
      copiedUpTo = start + needle.text.length;
    }
    parts.push(text.slice(copiedUpTo));
    return parts.join('');
  }
}
