/**
 * Secret masking, table-driven: reading env files as dotenv does, which values are masked (the
 * named rule), the encoded forms, and the masker over texts where secrets sit anywhere.
 */
import { describe, expect, it } from '@jest/globals';
import { parseEnvFile } from '../../src/core/secrets/env-file.js';
import { isMaskable, MASKING_RULES, SecretMasker, secretForms } from '../../src/core/secrets/mask.js';

describe('parseEnvFile', () => {
  it.each([
    ['KEY=value', [['KEY', 'value']]],
    ['export KEY=value', [['KEY', 'value']]],
    ['export  KEY=value', [['KEY', 'value']]],
    ['  KEY = value  ', [['KEY', 'value']]],
    ['KEY: value', [['KEY', 'value']]],
    ['KEY=value # a comment', [['KEY', 'value']]],
    ['KEY=val#ue', [['KEY', 'val#ue']]],
    ['# KEY=hidden\nKEY2=shown', [['KEY2', 'shown']]],
    ["KEY='single # kept'", [['KEY', 'single # kept']]],
    ['KEY="double\\nline"', [['KEY', 'double\nline']]],
    ['KEY="say \\"hi\\" there"', [['KEY', 'say "hi" there']]],
    ['KEY="first\nsecond"\nNEXT=x', [['KEY', 'first\nsecond'], ['NEXT', 'x']]],
    ['KEY="never closed\nNEXT=x', [['KEY', 'never closed\nNEXT=x']]],
    ['KEY=`backtick`', [['KEY', 'backtick']]],
    ['A=1\r\nB=2\r\n', [['A', '1'], ['B', '2']]],
    ['not an assignment\n=nokey\n9KEY=x', []],
    ['dotted.key-name=v', [['dotted.key-name', 'v']]],
    ['EMPTY=', [['EMPTY', '']]],
    ['A=1\rB=2', [['A', '1'], ['B', '2']]],
    ['KEY="carriage\\rreturn"', [['KEY', 'carriage\rreturn']]],
    ["KEY='ends in a backslash\\'\nNEXT=x", [['KEY', 'ends in a backslash\\'], ['NEXT', 'x']]],
  ])('reads %j', (text, expected) => {
    expect(parseEnvFile(text).map(({ key, value }) => [key, value])).toEqual(expected);
  });
});

describe('which values are masked', () => {
  it('names its length rule', () => {
    expect(MASKING_RULES).toEqual({ minValueLength: 6, minFormLength: 8 });
  });

  it.each([
    ['sk-live-1234', true],
    ['abcdef', true],
    ['abcde', false],
    ['  abcde  ', false],
    ['true', false],
    ['FALSE', false],
    ['production', false],
    ['development', false],
    ['disabled', false],
    ['123456', false],
    ['-12.5e3', false],
    ['3.14159', false],
    ['1234567a', true],
    ['http://localhost:3000/api', false],
    ['postgres://127.0.0.1:5432/app', false],
    ['redis://[::1]:6379', false],
    ['postgres://admin:hunter22@localhost:5432/app', true],
    ['https://api.example.com/v1', true],
    ['https://localhost.evil.test/x', true],
    // Only a whole value is a setting or a number: one that merely starts or ends like one is masked.
    ['trueblue-token', true],
    ['token-is-true', true],
    ['.123456', false],
    ['12e+45', false],
    ['1.5e+10', false],
    ['12e+4x5', true],
    ['see http://localhost:3000', true],
    ['http://localhost:3000/a b', true],
  ])('%j masked: %s', (value, expected) => {
    expect(isMaskable(value)).toBe(expected);
  });
});

describe('secretForms', () => {
  it('holds the value, its base64 at every alignment (standard and URL-safe) and its URL encoding', () => {
    const value = 'p@ss/word+secret?';
    const forms = secretForms(value);
    expect(forms[0]).toBe(value);
    expect(forms).toContain(Buffer.from(value).toString('base64'));
    expect(forms).toContain(encodeURIComponent(value));
    for (const prefix of ['', 'K', 'KE', 'KEY=']) {
      const encoded = Buffer.from(`${prefix}${value}\nNEXT=1`).toString('base64');
      expect(forms.some((form) => form !== value && encoded.includes(form))).toBe(true);
      const urlSafe = encoded.replace(/\+/g, '-').replace(/\//g, '_');
      expect(forms.some((form) => form !== value && urlSafe.includes(form))).toBe(true);
    }
    expect(forms.every((form) => form === value || form.length >= MASKING_RULES.minFormLength)).toBe(true);
  });

  it('keeps a short value itself but no encoded form shorter than the rule', () => {
    const forms = secretForms('abcdef');
    expect(forms).toContain('abcdef');
    expect(forms.filter((form) => form !== 'abcdef').every((form) => form.length >= 8)).toBe(true);
  });
});

describe('SecretMasker', () => {
  const masker = new SecretMasker([
    { key: 'API_KEY', value: 'sk-live-51HxYz', file: '.env' },
    { key: 'DB_URL', value: 'postgres://admin:hunter22@db.internal:5432/app', file: 'api/.env.local' },
    { key: 'DB_PASSWORD', value: 'hunter22', file: 'api/.env.local' },
    { key: 'DEBUG', value: 'true', file: '.env' },
    { key: 'PORT', value: '8080', file: '.env' },
  ]);

  it('counts only the values its rule masks', () => {
    expect(masker.values).toBe(3);
  });

  it.each([
    ['API_KEY=sk-live-51HxYz', 'API_KEY=[masked: API_KEY from .env]'],
    ['sk-live-51HxYz', '[masked: API_KEY from .env]'],
    ['a sk-live-51HxYz b sk-live-51HxYz c', 'a [masked: API_KEY from .env] b [masked: API_KEY from .env] c'],
    ['xsk-live-51HxYzx', 'x[masked: API_KEY from .env]x'],
    ['url=postgres://admin:hunter22@db.internal:5432/app;', 'url=[masked: DB_URL from api/.env.local];'],
    ['pw hunter22', 'pw [masked: DB_PASSWORD from api/.env.local]'],
    ['DEBUG=true PORT=8080', 'DEBUG=true PORT=8080'],
    ['sk-live-51HxY', 'sk-live-51HxY'],
    ['', ''],
    ['abc', 'abc'],
    ['abcde', 'abcde'],
    // Leftmost first, whatever order they are found in; the longest value where two start at one place.
    [
      'u postgres://admin:hunter22@db.internal:5432/app p hunter22 k sk-live-51HxYz',
      'u [masked: DB_URL from api/.env.local] p [masked: DB_PASSWORD from api/.env.local] k [masked: API_KEY from .env]',
    ],
    ['sk-live-51HxYz hunter22', '[masked: API_KEY from .env] [masked: DB_PASSWORD from api/.env.local]'],
  ])('masks %j', (text, expected) => {
    expect(masker.mask(text)).toBe(expected);
  });

  it('masks an encoded form as short as the rule allows', () => {
    const six = new SecretMasker([{ key: 'PIN', value: 'abcdef', file: '.env' }]);
    expect(Buffer.from('abcdef').toString('base64')).toHaveLength(MASKING_RULES.minFormLength);
    expect(six.mask('YWJjZGVm')).toBe('[masked: PIN from .env]');
  });

  it('masks the base64 of a whole env file and the URL-encoded value', () => {
    const file = 'API_KEY=sk-live-51HxYz\nDEBUG=true\n';
    const encoded = Buffer.from(file).toString('base64');
    expect(masker.mask(encoded)).not.toBe(encoded);
    expect(masker.mask(encoded)).toContain('[masked: API_KEY from .env]');
    const url = `https://x.test/?u=${encodeURIComponent('postgres://admin:hunter22@db.internal:5432/app')}`;
    expect(masker.mask(url)).toBe('https://x.test/?u=[masked: DB_URL from api/.env.local]');
  });

  it('leaves text without secrets as the same string, and an empty masker changes nothing', () => {
    const text = 'nothing to see here '.repeat(100);
    expect(masker.mask(text)).toBe(text);
    const empty = new SecretMasker([{ key: 'X', value: 'short', file: '.env' }]);
    expect(empty.values).toBe(0);
    expect(empty.mask('short and sk-live-51HxYz')).toBe('short and sk-live-51HxYz');
  });

  it('masks a secret that ends the text, after any number of characters', () => {
    const secret = 'Zq9!secretvalue';
    const one = new SecretMasker([{ key: 'S', value: secret, file: '.env' }]);
    for (let at = 0; at < 40; at += 1) expect(one.mask(`${'.'.repeat(at)}${secret}`)).toBe(`${'.'.repeat(at)}[masked: S from .env]`);
  });

  it('masks a secret whose characters repeat when it starts the text, and nothing before it', () => {
    const one = new SecretMasker([{ key: 'R', value: 'abababab-token', file: '.env' }]);
    expect(one.mask('abababab-token rest')).toBe('[masked: R from .env] rest');
    expect(one.mask('abababab-toke rest')).toBe('abababab-toke rest');
  });

  it('masks the longer of two values that start at one place, whichever file listed it first', () => {
    const both = new SecretMasker([
      { key: 'SHORT', value: 'abcdefgh', file: '.env' },
      { key: 'LONG', value: 'abcdefgh-and-more', file: '.env' },
    ]);
    expect(both.mask('x abcdefgh-and-more y')).toBe('x [masked: LONG from .env] y');
    expect(both.mask('x abcdefgh y')).toBe('x [masked: SHORT from .env] y');
  });

  it('masks a value written with spaces around it in its file', () => {
    const spaced = new SecretMasker([{ key: 'T', value: '  tok-en-value  ', file: '.env' }]);
    expect(spaced.mask('auth=tok-en-value;')).toBe('auth=[masked: T from .env];');
  });

  it('masks the whole URL-safe base64 of a value, padding left out, at every length', () => {
    for (const value of ['s3cret-a', 's3cret-ab', 's3cret-abc']) {
      const one = new SecretMasker([{ key: 'B', value, file: '.env' }]);
      expect(one.mask(`id=${Buffer.from(value).toString('base64url')}`)).toBe('id=[masked: B from .env]');
      expect(one.mask(`id=${Buffer.from(value).toString('base64')}`)).toBe('id=[masked: B from .env]');
    }
  });

  it('finds a secret at every position of a long text', () => {
    const secret = 'Zq9!secretvalue';
    const one = new SecretMasker([{ key: 'S', value: secret, file: '.env' }]);
    for (let at = 0; at < 40; at += 1) {
      const text = `${'.'.repeat(at)}${secret}${'-'.repeat(40 - at)}`;
      expect(one.mask(text)).toBe(`${'.'.repeat(at)}[masked: S from .env]${'-'.repeat(40 - at)}`);
    }
  });
});

describe('values written the dotenv way (issue 32)', () => {
  // A private key as dotenv users write it: one line in double quotes, `\n` escapes between its lines.
  const keyLines = ['MIIEowIBAAKCAQEAx4fQ1lLkQ9Zr8h2C', 'Tb5mYpW0e3Rk7uVnJd1sQa9LwZ6cXgHf', 'p2KjN8rVt4yUbE0oMi5Fq3WnAs7DhLx'];
  const pem = ['-----BEGIN RSA PRIVATE KEY-----', ...keyLines, '-----END RSA PRIVATE KEY-----'];
  const fileText = `PRIVATE_KEY="${pem.join('\\n')}"\nQUOTED="pa\\"ss\\\\word-42"\nCERT="line-one-of-cert\nline-two-of-cert"\nexport  SPACED = spaced-token-77\n`;
  const masker = new SecretMasker(parseEnvFile(fileText).map((entry) => ({ ...entry, file: '.env' })));
  const label = (key: string): string => `[masked: ${key} from .env]`;

  it('reads every entry with its value and the form written in the file', () => {
    expect(parseEnvFile(fileText)).toEqual([
      { key: 'PRIVATE_KEY', value: pem.join('\n'), written: pem.join('\\n') },
      { key: 'QUOTED', value: 'pa"ss\\word-42', written: 'pa\\"ss\\\\word-42' },
      { key: 'CERT', value: 'line-one-of-cert\nline-two-of-cert' },
      { key: 'SPACED', value: 'spaced-token-77' },
    ]);
  });

  it('masks the file as cat prints it: no line of the key survives', () => {
    const masked = masker.mask(fileText);
    for (const line of keyLines) expect([line, masked.includes(line)]).toEqual([line, false]);
    expect(masked).toContain(`PRIVATE_KEY="${label('PRIVATE_KEY')}"`);
    expect(masked).not.toContain('pa\\"ss');
    expect(masked).not.toContain('line-one-of-cert');
    expect(masked).not.toContain('spaced-token-77');
  });

  it('masks single lines of a multi-line value, as grep and sed print them, in every encoding', () => {
    expect(masker.mask(`.env:3:${keyLines[1]}`)).toBe(`.env:3:${label('PRIVATE_KEY')}`);
    expect(masker.mask('line-two-of-cert"')).toBe(`${label('CERT')}"`);
    expect(masker.mask(Buffer.from(`x ${keyLines[2]}`).toString('base64'))).toContain(label('PRIVATE_KEY'));
    // The armour lines are the same in every key: they stay readable.
    expect(masker.mask(pem[0] as string)).toBe(pem[0]);
  });

  it('masks the JSON-escaped form of a value holding quotes, backslashes or line breaks', () => {
    expect(masker.mask(JSON.stringify({ password: 'pa"ss\\word-42' }))).toBe(`{"password":"${label('QUOTED')}"}`);
    expect(masker.mask(JSON.stringify({ cert: 'line-one-of-cert\nline-two-of-cert' }))).toBe(`{"cert":"${label('CERT')}"}`);
    expect(masker.mask('pa"ss\\word-42')).toBe(label('QUOTED'));
  });
});
