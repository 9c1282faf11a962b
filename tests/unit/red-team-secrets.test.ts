/**
 * The red-team table for secrets: ordinary commands that print a project's .env values, run for
 * real in a temporary project, their outputs put through the same masking the plugin applies in
 * `tool.execute.after`. However the command reaches the file, the secret never survives.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/core/logger.js';
import { BINARY_WITHHELD_NOTICE, maskToolOutput, MASKING_FAILED_OUTPUT } from '../../src/opencode/guards/output-mask.js';
import { ProjectSecrets } from '../../src/opencode/guards/project-secrets.js';
import { maskModelMessages } from '../../src/opencode/guards/message-mask.js';
import { maskSystemPrompt, SYSTEM_WITHHELD_NOTICE } from '../../src/opencode/guards/system-mask.js';

const API_KEY = 'sk-live-RedTeam4242secret';
const DB_PASSWORD = 'Hunter2-correct-horse';
const SUB_TOKEN = 'ghp_subfolderToken9988';
const SECRETS = [API_KEY, DB_PASSWORD, SUB_TOKEN];

let project: string;
let secrets: ProjectSecrets;

function sh(command: string): string {
  try {
    return execFileSync('bash', ['-c', command], { cwd: project, encoding: 'utf8', timeout: 20_000, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: project } });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    return `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
  }
}

beforeAll(async () => {
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-red-team-'));
  fs.writeFileSync(path.join(project, '.env'), `API_KEY=${API_KEY}\nDEBUG=true\n`);
  fs.writeFileSync(path.join(project, '.env.local'), `export DB_PASSWORD="${DB_PASSWORD}"\n`);
  fs.writeFileSync(path.join(project, '.env.example'), 'API_KEY=put-your-key-here\n');
  fs.mkdirSync(path.join(project, 'sub'));
  fs.writeFileSync(path.join(project, 'sub', '.env'), `TOKEN='${SUB_TOKEN}'\n`);
  fs.mkdirSync(path.join(project, 'node_modules', 'dep'), { recursive: true });
  fs.writeFileSync(path.join(project, 'node_modules', 'dep', '.env'), 'DEP_VALUE=not-ours-to-mask\n');
  fs.writeFileSync(path.join(project, 'config.ts'), 'export const key = process.env.API_KEY;\n');
  sh('git init -q && git add -A -f && git -c user.email=a@b.c -c user.name=t commit -qm init && echo "API_KEY=sk-live-RedTeam4242secret-rotated" >> .env');
  secrets = new ProjectSecrets(project, silentLogger);
  await secrets.scan();
});

afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

const ROUTES: [string, string][] = [
  ['cat', 'cat .env'],
  ['glob ?', 'cat .en?'],
  ['glob []', 'cat .[e]nv'],
  ['quote removal', 'cat .e""nv'],
  ['command substitution', 'cat $(ls -a | grep "^.env$")'],
  ['grep -r for the key name', 'grep -r API_KEY .'],
  ['grep for the value prefix', 'grep -rh sk- .'],
  ['git show REV:path', 'git show HEAD:.env'],
  ['git log -p', 'git log -p'],
  ['git grep', 'git grep API_KEY'],
  ['git diff', 'git diff'],
  ['node readFileSync', "node -e \"process.stdout.write(require('fs').readFileSync('.en'+'v','utf8'))\""],
  ['base64', 'base64 .env'],
  ['base64 one line', 'base64 -w0 .env.local'],
  ['base64 of the subfolder file', 'base64 -w0 sub/.env'],
  ['head', 'head -n 5 .env.local'],
  ['tail', 'tail sub/.env'],
  ['sed', 'sed -n p .env'],
  ['awk', "awk '{print $0}' .env"],
  ['cut the values', 'cut -d= -f2 .env .env.local'],
  ['source and echo', 'set -a; source ./.env; echo "$API_KEY"'],
  ['printenv after export', 'env $(grep -v "^#" .env | xargs) printenv API_KEY'],
  ['find -exec cat', "find . -name '.env*' -not -path './node_modules/*' -exec cat {} \\;"],
  ['tar round trip', 'tar cf - .env | tar xOf -'],
  ['copy then read', 'cp .env copy.txt && cat copy.txt'],
  ['JSON string', "node -e \"console.log(JSON.stringify(require('fs').readFileSync('.env.local','utf8')))\""],
  ['URL-encoded', "node -e \"console.log(encodeURIComponent(require('fs').readFileSync('.env.local','utf8')))\""],
  ['reversed line order', 'tac .env'],
  ['python read', "python3 -c \"print(open('.env').read())\""],
  ['diff against nothing', 'diff .env /dev/null'],
  ['grep -o the value', "grep -rho 'ghp_[A-Za-z0-9]*' ."],
  ['strings', 'strings .env.local'],
];

describe('secrets never survive masking, whatever command prints them', () => {
  it.each(ROUTES)('%s: %s', async (_route, command) => {
    const printed = sh(command);
    // The route really printed a secret (else it proves nothing).
    const encodedFile = (file: string) => Buffer.from(fs.readFileSync(path.join(project, file))).toString('base64');
    const leaked = SECRETS.some((secret) => printed.includes(secret) || printed.includes(encodeURIComponent(secret))) || ['.env', '.env.local', 'sub/.env'].some((file) => printed.replace(/\s/g, '').includes(encodedFile(file).slice(8, 24)));
    expect(leaked).toBe(true);
    const output = { title: command, output: printed, metadata: { output: printed, exit: 0, nested: [{ text: printed }] } };
    await maskToolOutput(output, () => secrets.masker());
    const seen = JSON.stringify(output);
    for (const secret of SECRETS) {
      expect(seen).not.toContain(secret);
      expect(seen).not.toContain(encodeURIComponent(secret));
    }
    expect(output.output).toContain('[masked: ');
  });

  it('masks what the read and grep tools print', async () => {
    const read = { title: '.env', output: `<file>\n00001| API_KEY=${API_KEY}\n00002| DEBUG=true\n</file>`, metadata: { preview: `API_KEY=${API_KEY}` } };
    const grep = { title: 'API_KEY', output: `Found 2 matches\n${project}/.env:\n  Line 1: API_KEY=${API_KEY}\n${project}/sub/.env:\n  Line 1: TOKEN='${SUB_TOKEN}'`, metadata: { matches: 2 } };
    for (const output of [read, grep]) {
      await maskToolOutput(output, () => secrets.masker());
      for (const secret of SECRETS) expect(JSON.stringify(output)).not.toContain(secret);
    }
    expect(read.output).toContain('API_KEY=[masked: API_KEY from .env]');
    expect(grep.output).toContain("TOKEN='[masked: TOKEN from sub/.env]'");
    expect(read.output).toContain('DEBUG=true');
  });

  it('does not mask template values or dependency folders', async () => {
    const output = { title: '', output: 'API_KEY=put-your-key-here DEP_VALUE=not-ours-to-mask', metadata: {} };
    await maskToolOutput(output, () => secrets.masker());
    expect(output.output).toBe('API_KEY=put-your-key-here DEP_VALUE=not-ours-to-mask');
  });

  it('withholds the output when masking fails, never passing it through', async () => {
    const output = { title: 'cat', output: `API_KEY=${API_KEY}`, metadata: { output: API_KEY } };
    await maskToolOutput(output, () => Promise.reject(new Error('disk on fire')));
    expect(output).toEqual({ title: 'output withheld', output: MASKING_FAILED_OUTPUT, metadata: {} });
  });

  it('withholds the output when the masker fails at once, before anything is awaited', () => {
    const output = { title: 'cat', output: `API_KEY=${API_KEY}`, metadata: { output: API_KEY } };
    void maskToolOutput(output, () => {
      throw new Error('disk on fire');
    });
    expect(output).toEqual({ title: 'output withheld', output: MASKING_FAILED_OUTPUT, metadata: {} });
  });

  it('masks the output before returning once the env files are known, and leaves clean metadata as it was', () => {
    const metadata = { exit: 0, files: ['src/a.ts'], nested: { note: 'nothing secret' } };
    const output = { title: 'printenv', output: `API_KEY=${API_KEY}`, metadata };
    void maskToolOutput(output, () => secrets.masker());
    expect(output.output).toBe('API_KEY=[masked: API_KEY from .env]');
    expect(output.metadata).toBe(metadata);
  });
});

/** Every string of a value, decoded where it is base64 (attachments, MCP images and blobs) too. */
function everythingSeen(value: unknown): string {
  const text = JSON.stringify(value);
  const decoded = [...text.matchAll(/[A-Za-z0-9+/]{16,}={0,2}/g)].map((match) => Buffer.from(match[0], 'base64').toString('latin1'));
  return `${text}\n${decoded.join('\n')}`;
}

describe('outputs that are not plain text (issue 32)', () => {
  it('drops an attachment whose bytes are an env file, as read returns a .env copied to leak.pdf', async () => {
    fs.copyFileSync(path.join(project, '.env'), path.join(project, 'leak.pdf'));
    const bytes = fs.readFileSync(path.join(project, 'leak.pdf'));
    // The read tool's result for a PDF in 1.18.33: a fixed text and the file as a base64 data URL.
    const clean = { type: 'file', mime: 'image/png', url: `data:image/png;base64,${Buffer.from('just a picture of a cat').toString('base64')}` };
    const output = {
      title: 'leak.pdf',
      output: 'PDF read successfully',
      metadata: { preview: 'PDF read successfully', truncated: false },
      attachments: [{ type: 'file', mime: 'application/pdf', url: `data:application/pdf;base64,${bytes.toString('base64')}` }, clean],
    };
    await maskToolOutput(output, () => secrets.masker());
    expect(output.attachments).toEqual([clean]);
    expect(output.output).toBe(`PDF read successfully\n${BINARY_WITHHELD_NOTICE}`);
    for (const secret of SECRETS) expect(everythingSeen(output)).not.toContain(secret);
  });

  it('masks an MCP tool result as the host hands it over: text, error, resource text, image and blob items', async () => {
    const envText = fs.readFileSync(path.join(project, '.env'), 'utf8');
    const base64 = Buffer.from(envText).toString('base64');
    // A filesystem server's read_file of .env, an error result quoting it, and binary items carrying it.
    const results = [
      { content: [{ type: 'text', text: envText }] },
      { isError: true, content: [{ type: 'text', text: `Error: cannot parse line 1: API_KEY=${API_KEY}` }] },
      { content: [{ type: 'resource', resource: { uri: 'file:///p/.env', mimeType: 'text/plain', text: envText } }] },
      { content: [{ type: 'image', mimeType: 'image/png', data: base64 }] },
      { content: [{ type: 'resource', resource: { uri: 'file:///p/x.pdf', mimeType: 'application/pdf', blob: base64 } }] },
      { content: [], structuredContent: { files: [{ name: '.env', lines: [{ text: `TOKEN='${SUB_TOKEN}'` }] }] } },
    ];
    for (const result of results) {
      await maskToolOutput(result as never, () => secrets.masker());
      for (const secret of SECRETS) expect([JSON.stringify(result).slice(0, 60), everythingSeen(result).includes(secret)]).toEqual([JSON.stringify(result).slice(0, 60), false]);
    }
    expect(results[0]?.content[0]).toEqual({ type: 'text', text: expect.stringContaining('API_KEY=[masked: API_KEY from .env]\nDEBUG=true\n') });
    expect(results[3]?.content[0]).toEqual({ type: 'text', text: BINARY_WITHHELD_NOTICE });
    expect(results[4]?.content[0]).toEqual({ type: 'text', text: BINARY_WITHHELD_NOTICE });
  });

  it('leaves a clean MCP image as it was', async () => {
    const image = { type: 'image', mimeType: 'image/png', data: Buffer.from('a harmless picture').toString('base64') };
    const result = { content: [image] };
    await maskToolOutput(result as never, () => secrets.masker());
    expect(result.content).toEqual([image]);
  });

  it('withholds an MCP result whose masking fails', async () => {
    const result = { content: [{ type: 'text', text: `API_KEY=${API_KEY}` }], structuredContent: { key: API_KEY } };
    await maskToolOutput(result as never, () => Promise.reject(new Error('disk on fire')));
    expect(JSON.stringify(result)).not.toContain(API_KEY);
    expect(result.content).toEqual([{ type: 'text', text: MASKING_FAILED_OUTPUT }]);
  });

  it('masks metadata nested deeper than it walks', async () => {
    let deep: unknown = { key: API_KEY };
    for (let i = 0; i < 20; i += 1) deep = { inner: deep };
    const output = { title: 't', output: 'fine', metadata: deep };
    await maskToolOutput(output, () => secrets.masker());
    expect(JSON.stringify(output)).not.toContain(API_KEY);
  });
});

describe('what a request carries besides tool outputs (issue 32)', () => {
  it('masks the system prompt parts in place: an AGENTS.md that holds the env file', async () => {
    const envText = fs.readFileSync(path.join(project, '.env'), 'utf8');
    const parts = ['You are a coding agent.', `Instructions from: ${project}/AGENTS.md\n# Notes\n${envText}`];
    const output = { system: parts };
    await maskSystemPrompt(output, () => secrets.masker());
    expect(output.system).toBe(parts);
    expect(parts[0]).toBe('You are a coding agent.');
    expect(parts[1]).toContain('API_KEY=[masked: API_KEY from .env]');
    for (const secret of SECRETS) expect(JSON.stringify(parts)).not.toContain(secret);
  });

  it('withholds the system prompt parts when masking fails', async () => {
    const output = { system: [`key ${API_KEY}`] };
    await maskSystemPrompt(output, () => Promise.reject(new Error('disk on fire')));
    expect(output.system).toEqual([SYSTEM_WITHHELD_NOTICE]);
  });

  it('masks every tool part of the conversation, a failed tool\'s error text included, and leaves the user\'s text', async () => {
    const userText = { type: 'text', text: `my own key is ${API_KEY}` };
    const failed = { type: 'tool', tool: 'files_read_file', state: { status: 'error', input: { path: '.env' }, error: `MCP error: bad line API_KEY=${API_KEY}` } };
    const done = { type: 'tool', tool: 'bash', state: { status: 'completed', input: {}, title: 't', output: `TOKEN='${SUB_TOKEN}'`, metadata: { output: `TOKEN='${SUB_TOKEN}'` } } };
    const output = { messages: [{ info: { role: 'user' }, parts: [userText] }, { info: { role: 'assistant' }, parts: [failed, done] }] };
    await maskModelMessages(output, () => secrets.masker());
    expect(userText.text).toBe(`my own key is ${API_KEY}`);
    expect(failed.state.error).toBe('MCP error: bad line API_KEY=[masked: API_KEY from .env]');
    expect(done.state.output).toBe("TOKEN='[masked: TOKEN from sub/.env]'");
    expect(JSON.stringify(output.messages[1])).not.toContain(SUB_TOKEN);
    await maskModelMessages(output, () => Promise.reject(new Error('disk on fire')));
    expect(failed.state.error).toBe(MASKING_FAILED_OUTPUT);
  });
});
