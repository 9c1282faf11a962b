import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  confineGrepToNonEnvFiles,
  createEnvFileGuard,
  fileSystemIgnoresCase,
  envFileGuard,
  envFileInCommand,
  GREP_WITHOUT_ENV_FILES,
  globTargetsEnv,
  isProtectedEnvPath,
} from '../../src/opencode/guards/env-guard.js';

const refused = (tool: string, args: unknown) => envFileGuard(tool, args);

describe('which paths are protected', () => {
  it('protects .env and .env.* wherever they are', () => {
    for (const file of ['.env', '.env.local', '.env.production', 'config/.env', '/abs/app/.env.development.local', 'C:\\app\\.env', ' .env ']) {
      expect([file, isProtectedEnvPath(file)]).toEqual([file, true]);
    }
  });

  it('allows templates and files that only contain ".env" in their name', () => {
    for (const file of ['.env.example', '.env.sample', '.env.template', '.env.local.example', 'x.env.ts', 'env.ts', '.envrc', 'src/dotenv.ts', '.environment', 'README.md']) {
      expect([file, isProtectedEnvPath(file)]).toEqual([file, false]);
    }
  });

  it('counts globs that aim at env files, not a plain wildcard', () => {
    for (const glob of ['.env*', '**/.env', '.env.*', '*.env', '*.env*', '{.env,README.md}', 'config/.env.{local,example}', '.env?']) {
      expect([glob, globTargetsEnv(glob)]).toEqual([glob, true]);
    }
    for (const glob of ['*', '**/*', '*.ts', '*.env.ts', '.env.example', '**/*.{ts,tsx}', 'src/**']) {
      expect([glob, globTargetsEnv(glob)]).toEqual([glob, false]);
    }
  });
});

describe('file tools', () => {
  it('refuses read, edit and write of .env files with a reason naming the file and the way out', () => {
    for (const tool of ['read', 'edit', 'write', 'multiedit']) {
      const reason = refused(tool, { filePath: '/repo/.env.local', content: 'x', oldString: 'a', newString: 'b' });
      expect(reason).toContain('/repo/.env.local');
      expect(reason).toContain('protectEnvFiles');
    }
  });

  it('allows the same tools on templates and ordinary files', () => {
    expect(refused('read', { filePath: '/repo/.env.example' })).toBeUndefined();
    expect(refused('edit', { filePath: 'src/app.env.ts', oldString: 'a', newString: 'b' })).toBeUndefined();
    expect(refused('write', { filePath: 'README.md', content: 'mentions .env in the text' })).toBeUndefined();
  });

  it('refuses grep into an env file or with an include aimed at env files', () => {
    expect(refused('grep', { pattern: 'KEY', path: '.env' })).toMatch(/refused grep/);
    expect(refused('grep', { pattern: 'KEY', include: '.env*' })).toMatch(/refused grep/);
    expect(refused('grep', { pattern: 'KEY', include: '*.ts' })).toBeUndefined();
    expect(refused('grep', { pattern: '\\.env', path: 'src' })).toBeUndefined();
  });

  it('refuses glob patterns aimed at env files', () => {
    expect(refused('glob', { pattern: '**/.env*' })).toMatch(/refused glob/);
    expect(refused('glob', { pattern: '**/*.ts' })).toBeUndefined();
  });

  it('refuses a patch that adds, updates, deletes or moves to an env file', () => {
    const patch = (header: string) => ['*** Begin Patch', header, '@@', '-A=1', '+A=2', '*** End Patch'].join('\n');
    expect(refused('apply_patch', { patchText: patch('*** Update File: .env') })).toMatch(/"\.env"/);
    expect(refused('apply_patch', { patchText: patch('*** Add File: config/.env.production') })).toMatch(/refused apply_patch/);
    expect(refused('patch', { patchText: patch('*** Delete File: .env.local') })).toMatch(/refused patch/);
    expect(refused('apply_patch', { patchText: patch('*** Update File: a.ts\n*** Move to: .env') })).toMatch(/refused/);
    expect(refused('apply_patch', { patchText: patch('*** Update File: .env.example') })).toBeUndefined();
  });

  it('ignores arguments of the wrong shape and tools that touch no files', () => {
    expect(refused('read', null)).toBeUndefined();
    expect(refused('read', { filePath: 42 })).toBeUndefined();
    expect(refused('webfetch', { url: 'https://example.test/.env' })).toBeUndefined();
    expect(refused('todowrite', { todos: [{ content: 'cat .env' }] })).toBeUndefined();
  });
});

describe('bash commands', () => {
  it('refuses commands that read or source env files', () => {
    const commands = [
      'cat .env',
      'cat ./.env.local | head -3',
      'source .env && npm start',
      '. ./.env',
      'set -a; . config/.env.production; set +a',
      'export $(grep -v "^#" .env | xargs)',
      'python -c "print(open(\'.env\').read())"',
      'docker run --env-file=.env app',
      'less < .env',
      'cat .env*',
      'cat .env{,.local}',
      'node -r dotenv/config app.js dotenv_config_path=.env.local',
      'cp .env /tmp/leak',
      'echo $HOME/.env',
    ];
    for (const command of commands) expect([command, envFileInCommand(command) !== undefined]).toEqual([command, true]);
    expect(refused('bash', { command: 'cat .env', description: 'read env' })).toMatch(/refused bash: "\.env"/);
  });

  it('allows ordinary commands, templates and env-like names that are not env files', () => {
    const commands = ['ls -la', 'cat .env.example', 'cp .env.sample .env.example', 'cat src/x.env.ts', 'npm test', 'git commit -m "read the environment"', 'env | sort', 'printenv HOME', 'cat .envrc'];
    for (const command of commands) expect([command, envFileInCommand(command)]).toEqual([command, undefined]);
  });
});

describe('a grep that names no files', () => {
  it('is narrowed to every file but env files, not refused', () => {
    const args: Record<string, unknown> = { pattern: 'API_TOKEN' };
    expect(envFileGuard('grep', args)).toBeUndefined();
    confineGrepToNonEnvFiles('grep', args);
    expect(args).toEqual({ pattern: 'API_TOKEN', include: GREP_WITHOUT_ENV_FILES });
  });

  it('keeps a file filter the agent chose, and leaves other tools alone', () => {
    const chosen: Record<string, unknown> = { pattern: 'x', include: '*.ts' };
    confineGrepToNonEnvFiles('grep', chosen);
    expect(chosen.include).toBe('*.ts');
    const blank: Record<string, unknown> = { pattern: 'x', include: '  ' };
    confineGrepToNonEnvFiles('grep', blank);
    expect(blank.include).toBe(GREP_WITHOUT_ENV_FILES);
    for (const catchAll of ['*', '**', '**/*', '*.*', '.*']) {
      const every: Record<string, unknown> = { pattern: 'x', include: catchAll };
      confineGrepToNonEnvFiles('grep', every);
      expect(every.include).toBe(GREP_WITHOUT_ENV_FILES);
    }
    const scoped: Record<string, unknown> = { pattern: 'x', include: 'src/*' };
    confineGrepToNonEnvFiles('grep', scoped);
    expect(scoped.include).toBe('src/*');
    const glob: Record<string, unknown> = { pattern: '**/*.ts' };
    confineGrepToNonEnvFiles('glob', glob);
    expect(glob).toEqual({ pattern: '**/*.ts' });
  });
});

describe('the cheap gaps of the name check, closed', () => {
  it.each([
    ['git show HEAD:.env', 'HEAD:.env'],
    ['git show origin/main:config/.env.local', 'origin/main:config/.env.local'],
    ['cat .en?', '.en?'],
    ['cat .[e]nv', '.[e]nv'],
    ['cat .e*', '.e*'],
    ['cat ./.[a-z]nv.local', './.[a-z]nv.local'],
    ['cat .e""nv', '.env'],
    ["cat '.env'", '.env'],
    ["cat .e'n'v", '.env'],
    ['cat .e\\nv', '.env'],
  ])('refuses %s', (command, target) => {
    expect(envFileInCommand(command)).toBe(target);
    expect(refused('bash', { command })).toContain(target);
  });

  it.each(['ls -a .*', 'cat .eslintrc', 'git show HEAD:README.md', 'cat .en', 'echo "it\'s fine"', 'cat .[a]bc', 'cat .?', 'grep -r "env" src'])('allows %s', (command) => {
    expect(envFileInCommand(command)).toBeUndefined();
  });

  it('reads names without case only where the file system ignores case', () => {
    expect(isProtectedEnvPath('.ENV')).toBe(false);
    expect(isProtectedEnvPath('.ENV', true)).toBe(true);
    expect(isProtectedEnvPath('Config/.Env.Local', true)).toBe(true);
    expect(isProtectedEnvPath('.ENV.EXAMPLE', true)).toBe(false);
    const insensitive = createEnvFileGuard({ ignoreCase: true });
    expect(insensitive('read', { filePath: '/repo/.ENV' })).toMatch(/refused read/);
    expect(insensitive('bash', { command: 'cat .Env' })).toMatch(/refused bash/);
    expect(createEnvFileGuard()('read', { filePath: '/repo/.ENV' })).toBeUndefined();
  });

  it('tells a case-sensitive file system from one that ignores case', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-case-'));
    try {
      fs.writeFileSync(path.join(dir, 'Readme.md'), 'x');
      // Linux file systems here are case-sensitive: the flipped name does not resolve.
      expect(fileSystemIgnoresCase(dir)).toBe(fs.existsSync(path.join(dir, 'rEADME.MD')));
      expect(fileSystemIgnoresCase(path.join(dir, 'missing'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
