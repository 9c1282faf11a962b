/**
 * Reading `.env` files as dotenv does: `KEY=value` lines, optional `export `, `#` comments,
 * single-quoted values taken as they are, double-quoted values with `\n` escapes and line breaks,
 * unquoted values up to an inline ` #` comment. Pure: the caller reads the file.
 */

export interface EnvEntry {
  key: string;
  value: string;
  /**
   * The value as written between its quotes, when that differs from the value (`\n` escapes,
   * `\"`): `cat .env` prints this form, so it is masked too.
   */
  written?: string;
}

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]\s*(.*)$/;

/** The entries of an env file's text, in order; lines that are not assignments are skipped. */
export function parseEnvFile(text: string): EnvEntry[] {
  const entries: EnvEntry[] = [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const match = LINE.exec(lines[i] as string);
    if (!match) continue;
    const key = match[1] as string;
    let raw = (match[2] as string).trim();
    const quote = raw[0];
    if (quote === '"' || quote === "'" || quote === '`') {
      // A quoted value may run over several lines until its closing quote.
      let body = raw.slice(1);
      while (!closes(body, quote) && i + 1 < lines.length) {
        i += 1;
        body += `\n${lines[i] as string}`;
      }
      const end = closingIndex(body, quote);
      raw = end === -1 ? body : body.slice(0, end);
      const value = quote === '"' ? unescapeDoubleQuoted(raw) : raw;
      entries.push(value === raw ? { key, value } : { key, value, written: raw });
    } else {
      entries.push({ key, value: raw.replace(/\s+#.*$/, '').trim() });
    }
  }
  return entries;
}

/** dotenv's escapes inside double quotes, read left to right so `\\n` stays a backslash and an `n`. */
function unescapeDoubleQuoted(body: string): string {
  return body.replace(/\\([nrt"\\])/g, (_, char: string) => DOUBLE_QUOTE_ESCAPES[char] ?? char);
}

const DOUBLE_QUOTE_ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t' };

function closingIndex(body: string, quote: string): number {
  for (let at = 0; at < body.length; at += 1) {
    if (body[at] === '\\' && quote === '"') at += 1;
    else if (body[at] === quote) return at;
  }
  return -1;
}

function closes(body: string, quote: string): boolean {
  return closingIndex(body, quote) !== -1;
}
