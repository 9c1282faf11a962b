/**
 * The other masking passes, case by case where a wrong rule would go unseen by the broader tests:
 * stored text masked with other projects' values (stored-text.ts: once per session, within its
 * bound, re-checked on a timer, fail-closed), the conversation's tool parts masked again before a
 * request (message-mask.ts: only tool parts, the tracker's own tools with every project's values),
 * and the system prompt (system-mask.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { SecretMasker } from '../../src/core/secrets/mask.js';
import { maskModelMessages } from '../../src/opencode/guards/message-mask.js';
import type { ModelMessages } from '../../src/opencode/guards/message-mask.js';
import { MASKING_FAILED_OUTPUT } from '../../src/opencode/guards/output-mask.js';
import type { ProjectSecrets } from '../../src/opencode/guards/project-secrets.js';
import { STORED_TEXT_LIMITS, STORED_TEXT_WITHHELD, StoredTextMasker } from '../../src/opencode/guards/stored-text.js';
import { maskSystemPrompt, SYSTEM_WITHHELD_NOTICE } from '../../src/opencode/guards/system-mask.js';
import { recordingLogger } from '../helpers/temp-store.js';
import { useTempDirs, writeIn } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-guards-stored-');

const HERE = 'sk-live-here-0a91d3f7';
const OTHER = 'pw-other-project-6be2c4';
const here = (): SecretMasker => new SecretMasker([{ key: 'HERE_KEY', value: HERE, file: '.env' }]);
const other = (): SecretMasker => new SecretMasker([{ key: 'OTHER_KEY', value: OTHER, file: 'other/.env' }]);

describe('stored text, masked with the other projects\' values', () => {
  it('reads the other projects once per session: a second call adds none', async () => {
    const a = tempDir();
    const b = tempDir();
    writeIn(a, '.env', `A=${OTHER}\n`);
    writeIn(b, '.env', 'B=b-value-2041\n');
    const masker = new StoredTextMasker(undefined, recordingLogger([]));
    await masker.addKnownProjects(() => [a], '/self');
    await masker.addKnownProjects(() => [b], '/self');
    expect(masker.otherProjects).toBe(1);
    expect(masker.mask('b-value-2041')).toBe('b-value-2041');
  });

  it(`reads at most ${STORED_TEXT_LIMITS.maxOtherProjects} other projects, and adds none past that bound`, async () => {
    const roots = Array.from({ length: STORED_TEXT_LIMITS.maxOtherProjects + 1 }, () => tempDir());
    const masker = new StoredTextMasker(undefined, recordingLogger([]));
    await masker.addKnownProjects(() => roots.slice(0, STORED_TEXT_LIMITS.maxOtherProjects - 1), '/self');
    await masker.addProject(roots[STORED_TEXT_LIMITS.maxOtherProjects - 1] as string);
    expect(masker.otherProjects).toBe(STORED_TEXT_LIMITS.maxOtherProjects);
    writeIn(roots[STORED_TEXT_LIMITS.maxOtherProjects] as string, '.env', 'LAST=past-the-bound-77\n');
    await masker.addProject(roots[STORED_TEXT_LIMITS.maxOtherProjects] as string);
    expect(masker.otherProjects).toBe(STORED_TEXT_LIMITS.maxOtherProjects);
    expect(masker.mask('past-the-bound-77')).toBe('past-the-bound-77');
  });

  it('says in one line when the known projects cannot be listed', async () => {
    const logged: { level: string; message: string }[] = [];
    const masker = new StoredTextMasker(undefined, recordingLogger(logged));
    await masker.addKnownProjects(() => {
      throw new Error('database closed');
    }, '/self');
    expect(logged).toEqual([{ level: 'warn', message: "agent-tracker: other projects' .env values could not be listed; stored text is masked with this project's only: database closed" }]);
  });

  it(`re-checks the other projects' env files once more than ${STORED_TEXT_LIMITS.recheckMs} ms have passed, not before`, async () => {
    const root = tempDir();
    writeIn(root, '.env', 'K=first-value-3310\n');
    let now = 5_000_000;
    const masker = new StoredTextMasker(undefined, recordingLogger([]), () => now);
    await masker.addKnownProjects(() => [root], '/self');
    expect(masker.mask('first-value-3310')).toBe('[masked: K from .env]');
    writeIn(root, '.env', 'K=second-value-4421\n');
    now += STORED_TEXT_LIMITS.recheckMs;
    expect(masker.mask('second-value-4421')).toBe('second-value-4421');
    now += 1;
    expect(masker.mask('second-value-4421')).toBe('[masked: K from .env]');
  });

  it('withholds text it cannot check, and its masker for the output guards says so by throwing', () => {
    const broken = { maskNow: () => { throw new Error('unreadable'); } } as unknown as ProjectSecrets;
    const masker = new StoredTextMasker(broken, recordingLogger([]));
    expect(masker.mask('any text')).toBe(STORED_TEXT_WITHHELD);
    const guard = masker.masker();
    expect(() => guard.mask('any text')).toThrow('masking failed');
    expect(guard.finds('any text')).toBe(true);
    expect(guard.values).toBe(1);
  });

  it("finds only what it would change, and passes the withheld notice itself through", async () => {
    const root = tempDir();
    writeIn(root, '.env', `K=${OTHER}\n`);
    const masker = new StoredTextMasker(undefined, recordingLogger([]));
    await masker.addKnownProjects(() => [root], '/self');
    const guard = masker.masker();
    expect(guard.finds(`x ${OTHER}`)).toBe(true);
    expect(guard.finds('clean text')).toBe(false);
    expect(guard.mask(STORED_TEXT_WITHHELD)).toBe(STORED_TEXT_WITHHELD);
  });
});

/** A conversation: a tool part, the user's text, a tool part without a state, and the tracker's own tool. */
function conversation(): ModelMessages & { messages: { parts: Record<string, unknown>[] }[] } {
  return {
    messages: [
      {
        parts: [
          { type: 'tool', tool: 'bash', state: { output: `bash ${HERE} ${OTHER}`, title: 't', metadata: {} } },
          { type: 'text', text: `user says ${HERE}`, state: { output: `not a tool ${HERE}` } },
          { type: 'tool', tool: 'read', state: null },
        ],
      },
      { parts: [{ type: 'tool', tool: 'prior-art', state: { output: `recorded ${HERE} ${OTHER}`, title: 't', metadata: {} } }] },
      { noParts: true } as unknown as { parts: Record<string, unknown>[] },
    ],
  };
}

const stateOf = (messages: ReturnType<typeof conversation>, at: number, part: number): unknown => (messages.messages[at]?.parts[part] as { state: unknown }).state;

describe("the conversation's tool parts, masked again before a request", () => {
  it("masks tool parts only, and the tracker's own tools with every project's values too", () => {
    const messages = conversation();
    expect(maskModelMessages(messages, here, { tools: new Set(['prior-art']), masker: other })).toBeUndefined();
    expect((stateOf(messages, 0, 0) as { output: string }).output).toBe(`bash [masked: HERE_KEY from .env] ${OTHER}`);
    expect(messages.messages[0]?.parts[1]).toEqual({ type: 'text', text: `user says ${HERE}`, state: { output: `not a tool ${HERE}` } });
    expect(stateOf(messages, 0, 2)).toBeNull();
    expect((stateOf(messages, 1, 0) as { output: string }).output).toBe('recorded [masked: HERE_KEY from .env] [masked: OTHER_KEY from other/.env]');
  });

  it('waits for a masker still coming, and withholds every tool part when there is none', async () => {
    const later = conversation();
    const pending = maskModelMessages(later, () => Promise.resolve(here()));
    await pending;
    expect((stateOf(later, 0, 0) as { output: string }).output).toBe(`bash [masked: HERE_KEY from .env] ${OTHER}`);

    const rejected = conversation();
    await maskModelMessages(rejected, () => Promise.reject(new Error('no scan')));
    expect((stateOf(rejected, 0, 0) as { output: string }).output).toBe(MASKING_FAILED_OUTPUT);
    expect((stateOf(rejected, 1, 0) as { output: string }).output).toBe(MASKING_FAILED_OUTPUT);
    expect(rejected.messages[0]?.parts[1]).toEqual({ type: 'text', text: `user says ${HERE}`, state: { output: `not a tool ${HERE}` } });

    const thrown = conversation();
    maskModelMessages(thrown, () => {
      throw new Error('no masker');
    });
    expect((stateOf(thrown, 0, 0) as { output: string }).output).toBe(MASKING_FAILED_OUTPUT);
  });

  it('takes messages that are no list as none', () => {
    const odd = { messages: 'not a list' } as unknown as ModelMessages;
    expect(() => maskModelMessages(odd, here)).not.toThrow();
  });
});

describe('the system prompt', () => {
  it('masks its text parts in place and leaves any other part as it is', () => {
    const prompt = { system: [`rules ${HERE}`, 42 as unknown as string, 'plain'] };
    maskSystemPrompt(prompt, here);
    expect(prompt.system).toEqual(['rules [masked: HERE_KEY from .env]', 42, 'plain']);
  });

  it('waits for a masker still coming, withholds every part without one, and never throws on a prompt that is no list', async () => {
    const later = { system: [`rules ${HERE}`] };
    await maskSystemPrompt(later, () => Promise.resolve(here()));
    expect(later.system).toEqual(['rules [masked: HERE_KEY from .env]']);

    const rejected = { system: [`rules ${HERE}`, 'plain'] };
    await maskSystemPrompt(rejected, () => Promise.reject(new Error('no scan')));
    expect(rejected.system).toEqual([SYSTEM_WITHHELD_NOTICE, SYSTEM_WITHHELD_NOTICE]);

    const odd = { system: 'not a list' } as unknown as { system: string[] };
    expect(() =>
      maskSystemPrompt(odd, () => {
        throw new Error('no masker');
      }),
    ).not.toThrow();
    expect(odd.system).toBe('not a list');
  });
});

describe('the masking of the system prompt with a masker that fails', () => {
  it('withholds every part', () => {
    const failing = { values: 1, mask: () => { throw new Error('broken'); }, finds: () => true } as unknown as SecretMasker;
    const prompt = { system: [`rules ${HERE}`, 'plain'] };
    maskSystemPrompt(prompt, () => failing);
    expect(prompt.system).toEqual([SYSTEM_WITHHELD_NOTICE, SYSTEM_WITHHELD_NOTICE]);
  });
});
