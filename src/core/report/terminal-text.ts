/**
 * Text that takes exactly one terminal column per character. The player sheet is read in
 * terminals, in the TUI's toast and in a model's code block; a wide, zero-width or control
 * character would break its columns, so everything it prints goes through here first.
 */

/** What stands in for a character with no one-column ASCII form. */
export const REPLACEMENT_CHARACTER = '?';
/** What marks text that was cut to fit. */
export const ELLIPSIS = '...';

const COMBINING_MARKS = /\p{M}/gu;
const ONE_COLUMN_ASCII = /^[\x20-\x7e]$/;

/**
 * The text as printable ASCII: accents are dropped (`café` -> `cafe`), whitespace of any kind
 * becomes a space, and every other character that is not printable ASCII becomes `?`.
 */
export function toOneColumnText(text: string): string {
  let result = '';
  for (const character of text.normalize('NFKD').replace(COMBINING_MARKS, '')) {
    if (ONE_COLUMN_ASCII.test(character)) result += character;
    else if (/\s/u.test(character)) result += ' ';
    else result += REPLACEMENT_CHARACTER;
  }
  return result;
}

/** Cuts one-column text to at most `width` columns, ending in `...` when something was cut. */
export function fitEnd(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= ELLIPSIS.length) return text.slice(0, Math.max(0, width));
  return text.slice(0, width - ELLIPSIS.length) + ELLIPSIS;
}

/** Cuts one-column text to at most `width` columns keeping its end (the file name of a path). */
export function fitStart(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= ELLIPSIS.length) return text.slice(text.length - Math.max(0, width));
  return ELLIPSIS + text.slice(text.length - (width - ELLIPSIS.length));
}

/**
 * Characters a terminal or a page acts on instead of showing: C0 controls but newline, tab and the
 * CR of a CRLF line end (CSV's); ESC starts ANSI CSI/OSC sequences (clear screen, set the title);
 * DEL; C1 controls (U+009B is a one-byte CSI); and the bidirectional overrides and isolates that reorder what follows (U+202E),
 * plus the line and paragraph separators some terminals honour.
 */
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;

/**
 * Text from outside (agent names, notes, imported fields) made inert for a terminal: every control
 * character becomes its visible `\uXXXX` escape. JSON stays exact JSON: JSON.stringify never emits a
 * raw C0 control, and inside a JSON string `\uXXXX` parses back to the same character.
 */
export function neutralizeControls(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
