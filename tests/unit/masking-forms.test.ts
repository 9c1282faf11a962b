/**
 * Secret masking, the parts a user sees when a value leaks in another form: the exact encoded forms
 * of a value, a value written in its env file with escapes or across lines, its JSON-escaped form,
 * which file a masked value is named after, and `finds`. Every masker is built inside its test, so
 * each test exercises the construction it checks. Expected texts are written out here.
 */
import { describe, expect, it } from '@jest/globals';
import { parseEnvFile } from '../../src/core/secrets/env-file.js';
import { SecretMasker, secretForms } from '../../src/core/secrets/mask.js';

/** A password whose base64 holds `+` and `/` at every alignment: its URL-safe forms differ. */
const PASSWORD = '~?>tok-en?~';

describe('the forms a value can be printed in', () => {
  it('are exactly the value, its base64 at each alignment (standard and URL-safe, padding dropped) and its URL encoding', () => {
    expect([...secretForms(PASSWORD)].sort()).toEqual(
      [
        PASSWORD,
        // Alignment 0 (the value starts a base64 group), then 1 and 2 bytes in.
        'fj8+dG9rLWVu',
        'fj8-dG9rLWVu',
        'PnRvay1lbj9+',
        'PnRvay1lbj9-',
        'Pz50b2stZW4/',
        'Pz50b2stZW4_',
        // The value encoded on its own, with its padding and URL-safe without it.
        'fj8+dG9rLWVuP34=',
        'fj8-dG9rLWVuP34',
        '~%3F%3Etok-en%3F~',
      ].sort(),
    );
  });

  it('mask the URL-safe base64 of a text holding the value at every alignment', () => {
    const masker = new SecretMasker([{ key: 'PW', value: PASSWORD, file: '.env' }]);
    // Written out: base64url of `PW=~?>tok-en?~;`, `PW: ~?>tok-en?~;` and `P=~?>tok-en?~~;`.
    const cases: [string, string][] = [
      // At alignment 0 the value's own URL-safe base64 (`fj8-dG9rLWVuP34`) is the longer match: its last group is masked too.
      ['UFc9fj8-dG9rLWVuP347', 'UFc9[masked: PW from .env]7'],
      ['UFc6IH4_PnRvay1lbj9-Ow', 'UFc6IH4_[masked: PW from .env]Ow'],
      ['UD1-Pz50b2stZW4_fn47', 'UD1-[masked: PW from .env]fn47'],
    ];
    for (const [text, expected] of cases) expect(masker.mask(text)).toBe(expected);
  });
});

describe('values written in an env file with escapes or over several lines', () => {
  // `cat .env` prints the value as written: an escaped quote, and a line break inside the quotes.
  const fileText = 'TOKEN="  tok\\"en-one\ntok-en-two  "\nNEXT=plain\n';

  it('reads the value and the form written between the quotes', () => {
    expect(parseEnvFile(fileText)).toEqual([
      { key: 'TOKEN', value: '  tok"en-one\ntok-en-two  ', written: '  tok\\"en-one\ntok-en-two  ' },
      { key: 'NEXT', value: 'plain' },
    ]);
  });

  it('masks the written form as one value, keeping the blanks around it', () => {
    const masker = new SecretMasker(parseEnvFile(fileText).map((entry) => ({ ...entry, file: '.env' })));
    expect(masker.mask(fileText)).toBe('TOKEN="  [masked: TOKEN from .env]  "\nNEXT=plain\n');
  });

  it('masks each line of a multi-line value when a tool prints one line', () => {
    const masker = new SecretMasker([{ key: 'CERT', value: 'first-cert-line\nsecond-cert-line', file: 'certs/.env' }]);
    expect(masker.mask('$ grep cert .env\nsecond-cert-line\n')).toBe('$ grep cert .env\n[masked: CERT from certs/.env]\n');
  });

  it('masks a value inside JSON, where its quote and backslash are escaped, up to the JSON quotes', () => {
    const masker = new SecretMasker([{ key: 'DB_PASS', value: 'pa"ss\\word-42', file: '.env' }]);
    expect(masker.mask('{"user":"app","password":"pa\\"ss\\\\word-42"}')).toBe('{"user":"app","password":"[masked: DB_PASS from .env]"}');
    expect(masker.mask('password: pa"ss\\word-42')).toBe('password: [masked: DB_PASS from .env]');
  });

  it('takes a single-quoted value as written: no escapes are read in it', () => {
    expect(parseEnvFile("KEY='keep \\n and \\t as typed'")).toEqual([{ key: 'KEY', value: 'keep \\n and \\t as typed' }]);
  });

  it('masks a line of a multi-line value printed without the blanks around it (`echo $CERT` joins lines with one space)', () => {
    const masker = new SecretMasker([{ key: 'CERT', value: 'first-cert-line   \n   second-cert-line', file: '.env' }]);
    expect(masker.mask('first-cert-line second-cert-line')).toBe('[masked: CERT from .env] [masked: CERT from .env]');
  });

  it('leaves the armour lines of a PEM key and its short lines readable, masking its other lines', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nab==\n-----END PRIVATE KEY-----';
    const masker = new SecretMasker([{ key: 'KEY', value: pem, file: '.env' }]);
    expect(masker.mask('-----BEGIN PRIVATE KEY-----')).toBe('-----BEGIN PRIVATE KEY-----');
    expect(masker.mask('-----END PRIVATE KEY-----')).toBe('-----END PRIVATE KEY-----');
    expect(masker.mask('tail: ab==')).toBe('tail: ab==');
    expect(masker.mask('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC')).toBe('[masked: KEY from .env]');
  });

  it('reads an unclosed quote to the end of the file, without the blanks ending its first line', () => {
    expect(parseEnvFile('KEY="never closed   \nNEXT=x')).toEqual([{ key: 'KEY', value: 'never closed\nNEXT=x' }]);
  });
});

describe('SecretMasker counts, names and finds', () => {
  it('counts each value its rule masks once', () => {
    const masker = new SecretMasker([
      { key: 'A', value: 'first-secret', file: '.env' },
      { key: 'B', value: 'no', file: '.env' },
      { key: 'C', value: 'second-secret', file: '.env' },
    ]);
    expect(masker.values).toBe(2);
  });

  it('names the file listed first when two files hold the same value', () => {
    const masker = new SecretMasker([
      { key: 'API_KEY', value: 'shared-secret-1', file: '.env' },
      { key: 'API_KEY', value: 'shared-secret-1', file: '.env.local' },
    ]);
    expect(masker.mask('key shared-secret-1')).toBe('key [masked: API_KEY from .env]');
  });

  it('finds a secret in a text, in any form, and nothing in a text without one', () => {
    const masker = new SecretMasker([{ key: 'PW', value: PASSWORD, file: '.env' }]);
    expect(masker.finds(`login with ${PASSWORD}`)).toBe(true);
    expect(masker.finds('attachment: fj8-dG9rLWVu...')).toBe(true);
    expect(masker.finds('login with ~?>tok-en?')).toBe(false);
    expect(masker.finds('')).toBe(false);
  });
});
