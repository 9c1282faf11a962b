/**
 * Routes by which env values reached the model in issue 32, through the real `opencode` binary
 * (1.18.33) and the fake model, whose request log is the witness: a private key written the dotenv
 * way, single lines of a multi-line value, a `.env` nine folders deep and one behind a symlinked
 * folder, a `.env` copied to `leak.pdf` and read (a base64 attachment), an MCP server's results
 * (text, error, image), and an AGENTS.md holding the env file (the system prompt of every request).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { bash, call, say, startFakeModel } from '../helpers/fake-model.js';
import type { ChatRequest, FakeModel, Step } from '../helpers/fake-model.js';
import { makeRepo, makeSandbox, opencodeConfig, removeSandbox, ROOT, runOpencode } from '../helpers/sandbox.js';
import type { RunResult, Sandbox } from '../helpers/sandbox.js';

jest.setTimeout(300_000);

const MARKER = 'ROUTES-TURN';
const MCP_SERVER = path.join(ROOT, 'tests', 'helpers', 'workers', 'file-mcp.mjs');
const DEEP = 'a/b/c/d/e/f/g/h/i';

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const keyLines = [`MIIEow${hex(14)}`, `Tb5mYp${hex(14)}`, `p2KjN8${hex(14)}`];
const SECRETS = {
  privateKeyLines: keyLines,
  quoted: `pa"ss\\word-${hex(6)}`,
  certLine: `cert-line-two-${hex(8)}`,
  deep: `deep-token-${hex(8)}`,
  linked: `linked-token-${hex(8)}`,
  api: `sk-live-${hex(10)}`,
};
const ALL = [...SECRETS.privateKeyLines, SECRETS.quoted, SECRETS.certLine, SECRETS.deep, SECRETS.linked, SECRETS.api];

const ENV_TEXT = [
  `PRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----\\n${keyLines.join('\\n')}\\n-----END RSA PRIVATE KEY-----"`,
  `DB_PASSWORD="${SECRETS.quoted.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`,
  `CERT="cert-line-one-public\n${SECRETS.certLine}"`,
  `export API_KEY = ${SECRETS.api}`,
  '',
].join('\n');

/** Every string of the requests, with base64 runs decoded too (attachments travel as base64). */
function everythingSent(requests: ChatRequest[]): string {
  const text = JSON.stringify(requests);
  const decoded = [...text.matchAll(/[A-Za-z0-9+/]{24,}={0,2}/g)].map((match) => Buffer.from(match[0], 'base64').toString('latin1'));
  return `${text}\n${decoded.join('\n')}`;
}

function toolNames(request: ChatRequest): string[] {
  return (request.tools ?? []).map((tool) => (tool as { function?: { name?: string } }).function?.name ?? '');
}

/** Text recorded in project A before A had an env file holding it; shown later in project B by prior-art. */
const CROSS_VALUE = `xk-live-${hex(10)}`;
const CROSS_STEPS: Record<string, Step[]> = {
  'CROSS-A': [call('log-activity', { task: `webhook retry with backoff, signed with ${CROSS_VALUE}`, outcome: 'excellent webhook retry work' }), say('Done.')],
  'CROSS-B': [call('prior-art', { task: 'webhook retry with backoff' }), say('Done.')],
};

/** The steps after the user's marked prompt, counted from it (an attachment may add a user message after it). */
function script({ request }: { request: ChatRequest }): Step {
  const messages = request.messages ?? [];
  const marked = (marker: string): number => messages.findIndex((message) => message.role === 'user' && JSON.stringify(message.content ?? '').includes(marker));
  if (!request.tools) return say('Done.');
  for (const [marker, steps] of Object.entries(CROSS_STEPS)) {
    const at = marked(marker);
    if (at !== -1) return steps[messages.slice(at + 1).filter((message) => message.role === 'assistant').length] ?? say('Done.');
  }
  const start = marked(MARKER);
  if (start === -1) return say('Done.');
  const step = messages.slice(start + 1).filter((message) => message.role === 'assistant').length;
  const mcp = (suffix: string): string => toolNames(request).find((name) => name.startsWith('files') && name.endsWith(suffix)) ?? `files_${suffix}`;
  const steps: Step[] = [
    bash('grep -rh PRIVATE_KEY .'),
    bash('grep -rh -A1 MIIEow . | head -n 5'),
    bash('grep -rh cert-line-two .'),
    bash('grep -rh DB_PASSWORD . ; grep -rh deep-token . ; grep -rhR linked-token .'),
    call(mcp('read_file'), { path: '.env' }),
    call(mcp('read_file_strict'), { path: '.env' }),
    call(mcp('read_file_image'), { path: '.env' }),
    // A copy the name check cannot see (`cp .env leak.pdf` is refused by name).
    bash(`node -e "require('fs').copyFileSync('.en'+'v', 'leak.pdf')"`),
    call('read', { filePath: 'leak.pdf' }),
  ];
  return steps[step] ?? say('Done.');
}

describe('secrets routes of issue 32 in a real OpenCode session', () => {
  let sandbox: Sandbox;
  let model: FakeModel;
  let repo: string;
  let run: RunResult;
  let crossRuns: RunResult[];
  let crossRequests: ChatRequest[];

  beforeAll(async () => {
    sandbox = makeSandbox('agent-tracker-secret-routes-');
    model = await startFakeModel(script);
    repo = makeRepo(sandbox, 'routes');
    const config = opencodeConfig({ modelUrl: model.url, extra: { mcp: { files: { type: 'local', command: [process.execPath, MCP_SERVER, repo], enabled: true } } } });
    // A model that takes images and PDFs, so the host sends attachments on to it.
    const provider = (config.provider as { fake: { models: Record<string, Record<string, unknown>> } }).fake;
    provider.models['fake-model'] = { ...provider.models['fake-model'], attachment: true, modalities: { input: ['text', 'image', 'pdf'], output: ['text'] } };
    fs.writeFileSync(path.join(sandbox.configDir, 'opencode.json'), JSON.stringify(config, null, 2));
    fs.writeFileSync(path.join(repo, '.env'), ENV_TEXT);
    fs.mkdirSync(path.join(repo, DEEP), { recursive: true });
    fs.writeFileSync(path.join(repo, DEEP, '.env'), `DEEP_TOKEN=${SECRETS.deep}\n`);
    // A folder kept in vendor/ (not scanned as such) and linked into the project.
    fs.mkdirSync(path.join(repo, 'vendor', 'shared-config'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'vendor', 'shared-config', '.env'), `LINKED_TOKEN=${SECRETS.linked}\n`);
    fs.symlinkSync(path.join('vendor', 'shared-config'), path.join(repo, 'config'));
    // What an agent did in an earlier session: `cat .env >> AGENTS.md`.
    fs.writeFileSync(path.join(repo, 'AGENTS.md'), `# Project notes\n\n${ENV_TEXT}`);
    run = await runOpencode(sandbox, repo, `${MARKER}: look at the configuration.`);
    // Project A records text holding a value before A has an env file with it; then the value moves into A's .env.
    const projectA = makeRepo(sandbox, 'project-a');
    const projectB = makeRepo(sandbox, 'project-b');
    const before = model.requests.length;
    crossRuns = [await runOpencode(sandbox, projectA, 'CROSS-A: note the webhook work')];
    fs.writeFileSync(path.join(projectA, '.env'), `WEBHOOK_SECRET=${CROSS_VALUE}\n`);
    crossRuns.push(await runOpencode(sandbox, projectB, 'CROSS-B: plan webhook retry'));
    crossRequests = model.requests.slice(before);
  });

  afterAll(async () => {
    await model?.close();
    if (sandbox) removeSandbox(sandbox);
  });

  it('runs every route and no value reaches the model, in any message or encoding', () => {
    expect(run.code).toBe(0);
    const toolReplies = model.requests.flatMap((request) => request.messages.filter((message) => message.role === 'tool'));
    expect(toolReplies.length).toBeGreaterThanOrEqual(9);
    const sent = everythingSent(model.requests);
    for (const secret of ALL) expect([secret, sent.includes(secret)]).toEqual([secret, false]);
    expect(sent.includes(JSON.stringify(SECRETS.quoted).slice(1, -1))).toBe(false);
  });

  it('shows placeholders where the routes printed values', () => {
    const replies = JSON.stringify(model.requests.flatMap((request) => request.messages.filter((message) => message.role === 'tool')));
    for (const placeholder of ['[masked: PRIVATE_KEY from .env]', '[masked: CERT from .env]', `[masked: DEEP_TOKEN from ${DEEP}/.env]`, '[masked: LINKED_TOKEN from config/.env]', '[masked: API_KEY from .env]']) {
      expect([placeholder, replies.includes(placeholder)]).toEqual([placeholder, true]);
    }
    expect(replies).toContain('PDF read successfully\\n[agent-tracker] An attachment was withheld');
    expect(replies).toContain('[agent-tracker] An attachment was withheld: its content holds a secret');
  });

  it('masks the env values AGENTS.md put into the system prompt of every request', () => {
    const withTools = model.requests.filter((request) => request.tools && JSON.stringify(request.messages).includes(MARKER));
    expect(withTools.length).toBeGreaterThan(0);
    for (const request of withTools) {
      const system = JSON.stringify(request.messages.filter((message) => message.role === 'system'));
      expect(system).toContain('Project notes');
      expect(system).toContain('[masked: API_KEY from .env]');
      for (const secret of ALL) expect([secret, system.includes(secret)]).toEqual([secret, false]);
    }
  });

  it("masks another project's value in what prior-art shows from that project's record", () => {
    expect(crossRuns.map((result) => result.code)).toEqual([0, 0]);
    const readerRequests = crossRequests.filter((request) => JSON.stringify(request.messages).includes('CROSS-B'));
    const priorArt = JSON.stringify(readerRequests.flatMap((request) => request.messages.filter((message) => message.role === 'tool')));
    // The record was found and shown (else this proves nothing), with the value masked.
    expect(priorArt).toContain('webhook retry with backoff, signed with [masked: WEBHOOK_SECRET from .env]');
    expect(everythingSent(readerRequests).includes(CROSS_VALUE)).toBe(false);
  });
});
