/**
 * A CLI that explains itself, run in-process: help per command from the one spec table, --version,
 * "did you mean" for mistyped commands and options, bare `agent-tracker`, and a reader that stops
 * early (`| head -1`). None of these open a database or read HOME.
 */
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { COMMAND_SPECS } from '../../src/cli/command-specs.js';
import { main } from '../../src/cli/program.js';
import { CLI, ROOT, makeSandbox, removeSandbox } from '../helpers/sandbox.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (text) => void (out += `${text}\n`), err: (text) => void (err += `${text}\n`) });
  return { code, out, err };
}

describe('agent-tracker help', () => {
  it('prints the short help and exits 0 when run bare', async () => {
    const result = await cli([]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^usage: agent-tracker <command>/);
    for (const name of Object.keys(COMMAND_SPECS)) expect(result.out).toMatch(new RegExp(`^ {2}${name} +\\S`, 'm'));
  });

  it.each(Object.keys(COMMAND_SPECS))('lists every option of %s with its default, and an example', async (name) => {
    const result = await cli([name, '--help']);
    expect(result.code).toBe(0);
    for (const option of COMMAND_SPECS[name]?.options ?? []) {
      const line = result.out.split('\n').findIndex((text) => text.startsWith(`  --${option.name}`));
      expect(line).toBeGreaterThanOrEqual(0);
      if (option.default) expect(result.out).toContain(`(default: ${option.default})`);
    }
    expect(result.out).toContain('  --db PATH');
    expect(result.out).toMatch(new RegExp(`examples:\\n {2}agent-tracker ${name}`));
  });

  it('shows the report options a user reaches for, with their defaults', async () => {
    const { out } = await cli(['help', 'report']);
    expect(out).toMatch(/--since ISO +only sessions that began at or after this date or time .*\(default: all time\)/);
    expect(out).toMatch(/--by setup\|agent\|model\|project\|session\s+one row per setup.*\(default: setup \(agent x model\)\)/);
  });

  it('explains the report columns as text, and refuses --explain with an output format (one line, exit 1)', async () => {
    const legend = await cli(['report', '--explain']);
    expect(legend.code).toBe(0);
    expect(legend.out).toMatch(/^sessions +OpenCode sessions/m);
    for (const format of [['--json'], ['--csv'], ['--html', 'page.html']]) {
      const refused = await cli(['report', '--explain', ...format]);
      expect(refused).toEqual({ code: 1, out: '', err: `agent-tracker report: --explain prints what the table's columns mean, as text: it takes no ${format[0]}\n` });
    }
  });

  it('takes --help after -- as a word, not as a question: no help, and a command without words refuses it in one line', async () => {
    const result = await cli(['review', '--db', '/nonexistent/agent-tracker.lmdb', '--', '--help']);
    expect(result.out).toBe('');
    expect(result.code).toBe(1);
    expect(result.err.trim().split('\n')).toEqual(["agent-tracker review: Unexpected argument '--help'. This command does not take positional arguments"]);
  });

  it('prints the version of package.json', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const result = await cli([flag]);
      expect(result.code).toBe(0);
      expect(result.out.trim()).toBe(`agent-tracker ${manifest.version}`);
    }
  });
});

describe('a negative number as an option\'s value', () => {
  it('reaches the option\'s own check, which says what it takes', async () => {
    for (const args of [['prior-art', 'add a parser', '--max', '-1'], ['prior-art', '--max', '-3', 'add a parser']]) {
      const result = await cli(args);
      expect(result.code).toBe(1);
      expect(result.err.trim().split('\n')).toEqual([`agent-tracker prior-art: the maximum number of results must be a whole number from 1 to 50, got ${args.find((arg) => arg.startsWith('-') && !arg.startsWith('--'))}`]);
    }
  });
});

describe('did you mean', () => {
  it('names --json for --jsn, in one line, exit 1', async () => {
    const result = await cli(['report', '--jsn']);
    expect(result.code).toBe(1);
    expect(result.err.trim().split('\n')).toHaveLength(1);
    expect(result.err).toContain("Unknown option '--jsn'. Did you mean --json?");
  });

  it('names the command for a typo, and nothing for a word far from every command', async () => {
    expect((await cli(['reprot'])).err).toContain('unknown command "reprot". Did you mean "report"?');
    expect((await cli(['grad'])).err).toContain('Did you mean "grade"?');
    const far = await cli(['frobnicate']);
    expect(far.code).toBe(1);
    expect(far.err).not.toContain('Did you mean');
  });
});

describe('a reader that stops early', () => {
  it('ends quietly with exit 0 when stdout is closed before the CLI writes (agent-tracker --help | head -1)', async () => {
    const sandbox = makeSandbox('agent-tracker-epipe-');
    try {
      const child = spawn(process.execPath, [CLI, '--help'], { cwd: sandbox.root, env: sandbox.env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
      // The reader is gone before node has even started: the first write meets a closed pipe.
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(stderr).toBe('');
      expect(code).toBe(0);
    } finally {
      removeSandbox(sandbox);
    }
  });
});
