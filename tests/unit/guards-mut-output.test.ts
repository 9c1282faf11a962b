/**
 * Masking a tool's output in every shape the host hands over (output-mask.ts), case by case where a
 * wrong rule would go unseen by the broader tests: metadata walked to its depth bound and copied only
 * where it changed, attachments screened by their decoded bytes, an MCP result's content items, the
 * output's copy in the metadata masked once, and fail-closed when the masker cannot be had.
 */
import { describe, expect, it } from '@jest/globals';
import { SecretMasker } from '../../src/core/secrets/mask.js';
import type { TextMasker } from '../../src/core/secrets/mask.js';
import { BINARY_WITHHELD_NOTICE, MASKING_FAILED_OUTPUT, maskToolOutput, maskWith } from '../../src/opencode/guards/output-mask.js';
import type { ToolOutput } from '../../src/opencode/guards/output-mask.js';

const SECRET = 'sk-live-output-4c7e19b2';
const MASKED = '[masked: API_KEY from .env]';
const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

function masker(): SecretMasker {
  return new SecretMasker([{ key: 'API_KEY', value: SECRET, file: '.env' }]);
}

function output(fields: Record<string, unknown>): ToolOutput {
  return { title: 't', output: '', metadata: {}, ...fields } as ToolOutput;
}

/** `depth` nested objects, each holding the next under `k`, the last holding `leaf`. */
function nest(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i += 1) value = { k: value };
  return value;
}

/** The value `steps` levels down a `nest`. */
function down(value: unknown, steps: number): unknown {
  let at = value;
  for (let i = 0; i < steps; i += 1) at = (at as { k: unknown }).k;
  return at;
}

describe('the metadata', () => {
  it('masks every string at any place, keeps other values, and copies only what changed', () => {
    const clean = { note: 'nothing here', list: ['a', 1] };
    const metadata = { clean, nested: { list: ['plain', `key ${SECRET}`, 5, null, true] }, count: 3, none: null };
    const out = output({ metadata });
    maskWith(out, masker());
    const masked = out.metadata as typeof metadata;
    expect(masked).toEqual({ clean, nested: { list: ['plain', `key ${MASKED}`, 5, null, true] }, count: 3, none: null });
    expect(masked.clean).toBe(clean);
    expect(metadata.nested.list[1]).toBe(`key ${SECRET}`);
  });

  it('walks eight levels, then checks what is deeper whole: withheld if it holds a secret, kept as it is if not', () => {
    const out = output({ metadata: { secret: nest(10, SECRET), clean: nest(10, 'plain') } });
    maskWith(out, masker());
    const metadata = out.metadata as { secret: unknown; clean: unknown };
    // maskWith walks the metadata from depth 0: the object 7 levels below `secret` sits at depth 8.
    expect(down(metadata.secret, 7)).toBe(MASKING_FAILED_OUTPUT);
    expect(down(metadata.clean, 10)).toBe('plain');
    const shallow = output({ metadata: { secret: nest(6, SECRET) } });
    maskWith(shallow, masker());
    expect(down((shallow.metadata as { secret: unknown }).secret, 6)).toBe(MASKED);
  });

  it("masks the output's copy in the metadata with one pass over it", () => {
    const text = `out ${SECRET}`;
    let masks = 0;
    const base = masker();
    const counting: TextMasker = { values: base.values, finds: (value) => base.finds(value), mask: (value) => ((masks += value === text ? 1 : 0), base.mask(value)) };
    const out = output({ output: text, metadata: { output: text, title: 'x' } });
    maskWith(out, counting);
    expect(out.output).toBe(`out ${MASKED}`);
    expect((out.metadata as { output: string }).output).toBe(`out ${MASKED}`);
    expect(masks).toBe(1);
  });
});

describe('attachments', () => {
  it('drops those whose content carries a secret, however it is encoded, masks those without a URL, and says so in the output', () => {
    const cleanImage = { mime: 'image/png', url: `data:image/png;base64,${base64('just pixels')}` };
    const attachments = [
      { mime: 'application/pdf', url: `data:application/pdf;base64,${base64(`%PDF header ${SECRET} trailer`)}` },
      { mime: 'text/plain', url: `data:text/plain,${encodeURIComponent(`plain ${SECRET}`)}` },
      { mime: 'text/plain', url: `data:text/plain,%E0%A4%A ${SECRET}` },
      { mime: 'text/html', url: `https://example.com/?key=${SECRET}` },
      cleanImage,
      { name: 'no url', note: `see ${SECRET}` },
    ];
    const out = output({ output: 'read 6 files', attachments });
    maskWith(out, masker());
    const kept = (out as unknown as { attachments: unknown[] }).attachments;
    expect(kept).toEqual([cleanImage, { name: 'no url', note: `see ${MASKED}` }]);
    expect(kept[0]).toBe(cleanImage);
    expect(out.output).toBe(`read 6 files\n${BINARY_WITHHELD_NOTICE}`);
  });

  it('keeps the list as it was when nothing is dropped, and puts the notice in place of an output that is no text', () => {
    const attachments = [{ url: `data:image/png;base64,${base64('clean')}` }];
    const clean = output({ output: 'one file', attachments });
    maskWith(clean, masker());
    expect((clean as unknown as { attachments: unknown[] }).attachments).toBe(attachments);
    expect(clean.output).toBe('one file');

    const bare = { title: 't', metadata: {}, attachments: [{ url: `data:text/plain;base64,${base64(SECRET)}` }] } as unknown as ToolOutput;
    maskWith(bare, masker());
    expect(bare.output).toBe(BINARY_WITHHELD_NOTICE);
    expect((bare as unknown as { attachments: unknown[] }).attachments).toEqual([]);
  });
});

describe("an MCP tool's content items", () => {
  it('masks text and resource text, replaces images and blobs that carry a secret, and leaves clean bytes as they are', () => {
    const cleanImage = { type: 'image', data: base64('clean pixels'), mimeType: 'image/png' };
    const out = output({
      content: [
        { type: 'text', text: `a ${SECRET}` },
        { type: 'image', data: base64(`pixels ${SECRET}`), mimeType: 'image/png' },
        cleanImage,
        { type: 'resource', resource: { uri: 'file:///x', blob: base64(`blob ${SECRET}`) } },
        { type: 'resource', resource: { uri: 'file:///y', text: `text ${SECRET}` } },
        `bare ${SECRET}`,
      ],
    });
    maskWith(out, masker());
    expect((out as unknown as { content: unknown[] }).content).toEqual([
      { type: 'text', text: `a ${MASKED}` },
      { type: 'text', text: BINARY_WITHHELD_NOTICE },
      cleanImage,
      { type: 'text', text: BINARY_WITHHELD_NOTICE },
      { type: 'resource', resource: { uri: 'file:///y', text: `text ${MASKED}` } },
      `bare ${MASKED}`,
    ]);
  });

  it('masks a content that is no list as any other field', () => {
    const out = output({ content: `text ${SECRET}` });
    maskWith(out, masker());
    expect((out as unknown as { content: unknown }).content).toBe(`text ${MASKED}`);
  });
});

describe('fail closed', () => {
  it('withholds the output when the masker cannot be had, at once or later, and masks it once the masker comes', async () => {
    const thrown = output({ output: SECRET, content: [{ type: 'text', text: SECRET }], error: SECRET, structuredContent: { a: SECRET }, attachments: [] });
    expect(
      maskToolOutput(thrown, () => {
        throw new Error('no masker');
      }),
    ).toBeUndefined();
    expect(thrown).toEqual({ title: 'output withheld', output: MASKING_FAILED_OUTPUT, metadata: {}, content: [{ type: 'text', text: MASKING_FAILED_OUTPUT }], error: MASKING_FAILED_OUTPUT });

    const rejected = output({ output: SECRET });
    await maskToolOutput(rejected, () => Promise.reject(new Error('scan failed')));
    expect(rejected.output).toBe(MASKING_FAILED_OUTPUT);

    const later = output({ output: SECRET });
    const pending = maskToolOutput(later, () => Promise.resolve(masker()));
    expect(later.output).toBe(SECRET);
    await pending;
    expect(later.output).toBe(MASKED);

    const now = output({ output: SECRET });
    expect(maskToolOutput(now, masker)).toBeUndefined();
    expect(now.output).toBe(MASKED);
  });
});
