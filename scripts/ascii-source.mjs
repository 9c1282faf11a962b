/**
 * Bun reads a file that starts with the `// @bun` pragma (one its bundler made) as Latin-1 unless it
 * is pure ASCII: its own bundler escapes every other character, so it never needs to decode UTF-8
 * there. Ours keeps UTF-8, so a "—" in the bundle reached the model as "â" plus two control
 * characters (the recommend-setup tool). Every non-ASCII character becomes a \uXXXX escape, which
 * means the same character in a string, template, regular expression, identifier or comment.
 */

/** `text` with every character above U+007F written as \uXXXX (astral ones as their two surrogates). */
export function asciiSource(text) {
  return text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
