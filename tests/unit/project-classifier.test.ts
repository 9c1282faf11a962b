/**
 * The classifier on fixture projects built in temporary folders: one per manifest family, one
 * with only AGENTS.md, one with malformed files, one empty.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseAgentsMd } from '../../src/core/projects/agents-md.js';
import { classifyProject, MAX_PROJECT_FILE_BYTES, NO_AGENTS_MD_HASH } from '../../src/core/projects/classifier.js';
import { UNKNOWN } from '../../src/core/types.js';
import { parseBuildGradle, parsePomXml } from '../../src/core/projects/manifests/jvm.js';
import { parseGoMod } from '../../src/core/projects/manifests/go-mod.js';
import { parseRequirementsTxt } from '../../src/core/projects/manifests/python.js';
import { InputError } from '../../src/core/validation.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-classify-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A fixture project: a folder with the given files. */
function fixture(name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

interface Expected {
  language: string;
  framework: string;
  manifestType: string;
  dependencies: string[];
}

const FIXTURES: Record<string, { files: Record<string, string>; expected: Expected }> = {
  'node-next': {
    files: {
      'package.json': JSON.stringify({
        name: 'shop',
        dependencies: { next: '14.0.0', react: '18.2.0', 'react-dom': '18.2.0' },
        devDependencies: { typescript: '5.4.0', eslint: '9.0.0' },
      }),
    },
    expected: { language: 'typescript', framework: 'next.js', manifestType: 'package.json', dependencies: ['next', 'react', 'react-dom', 'typescript', 'eslint'] },
  },
  'node-express-js': {
    files: { 'package.json': JSON.stringify({ dependencies: { express: '^4.19.0', pg: '^8.0.0' } }) },
    expected: { language: 'javascript', framework: 'express', manifestType: 'package.json', dependencies: ['express', 'pg'] },
  },
  'node-nest-tsconfig': {
    files: {
      'package.json': JSON.stringify({ dependencies: { '@nestjs/core': '10', '@nestjs/platform-express': '10', express: '4' } }),
      'tsconfig.json': '{}',
    },
    expected: { language: 'typescript', framework: 'nestjs', manifestType: 'package.json', dependencies: ['@nestjs/core', '@nestjs/platform-express', 'express'] },
  },
  'php-laravel': {
    files: {
      'composer.json': JSON.stringify({
        require: { php: '^8.2', 'ext-json': '*', 'laravel/framework': '^11.0', 'guzzlehttp/guzzle': '^7.8' },
        'require-dev': { 'phpunit/phpunit': '^11' },
      }),
    },
    expected: { language: 'php', framework: 'laravel', manifestType: 'composer.json', dependencies: ['laravel/framework', 'guzzlehttp/guzzle', 'phpunit/phpunit'] },
  },
  'php-symfony': {
    files: { 'composer.json': JSON.stringify({ require: { 'symfony/framework-bundle': '7.*', 'doctrine/orm': '^3' } }) },
    expected: { language: 'php', framework: 'symfony', manifestType: 'composer.json', dependencies: ['symfony/framework-bundle', 'doctrine/orm'] },
  },
  'rust-axum': {
    files: {
      'Cargo.toml': [
        '[package]',
        'name = "api"',
        'version = "0.1.0"',
        '',
        '[dependencies]',
        'axum = "0.7"',
        'tokio = { version = "1", features = ["full"] }',
        '',
        '[dev-dependencies]',
        'insta = "1"',
        '',
        "[target.'cfg(unix)'.dependencies]",
        'nix = "0.28"',
      ].join('\n'),
    },
    expected: { language: 'rust', framework: 'axum', manifestType: 'Cargo.toml', dependencies: ['axum', 'tokio', 'insta', 'nix'] },
  },
  'rust-actix': {
    files: { 'Cargo.toml': '[package]\nname = "web"\n[dependencies]\nactix-web = "4"\nserde = "1"\n' },
    expected: { language: 'rust', framework: 'actix-web', manifestType: 'Cargo.toml', dependencies: ['actix-web', 'serde'] },
  },
  'python-pyproject-fastapi': {
    files: {
      'pyproject.toml': [
        '[project]',
        'name = "svc"',
        'dependencies = ["FastAPI>=0.110", "uvicorn[standard]>=0.29", "SQLAlchemy ; python_version > \'3.8\'"]',
        '[project.optional-dependencies]',
        'test = ["pytest"]',
      ].join('\n'),
    },
    expected: { language: 'python', framework: 'fastapi', manifestType: 'pyproject.toml', dependencies: ['fastapi', 'uvicorn', 'sqlalchemy', 'pytest'] },
  },
  'python-poetry-django': {
    files: {
      'pyproject.toml': '[tool.poetry]\nname = "cms"\n[tool.poetry.dependencies]\npython = "^3.12"\nDjango = "^5.0"\n[tool.poetry.group.dev.dependencies]\npytest_django = "*"\n',
    },
    expected: { language: 'python', framework: 'django', manifestType: 'pyproject.toml', dependencies: ['django', 'pytest-django'] },
  },
  'python-requirements-flask': {
    files: {
      'requirements.txt': '# web\nFlask==3.0.0  # pinned\n-r base.txt\n--index-url https://example.test/simple\ngunicorn>=21\n-e .\nrequests[socks]~=2.31\n\n',
    },
    expected: { language: 'python', framework: 'flask', manifestType: 'requirements.txt', dependencies: ['flask', 'gunicorn', 'requests'] },
  },
  'python-both': {
    files: {
      'pyproject.toml': '[build-system]\nrequires = ["setuptools"]\n[project]\nname = "x"\ndependencies = ["click"]\n',
      'requirements.txt': 'django\nclick\n',
    },
    expected: { language: 'python', framework: 'django', manifestType: 'pyproject.toml', dependencies: ['click', 'django'] },
  },
  'go-gin': {
    files: {
      'go.mod': [
        'module example.test/api',
        '',
        'go 1.22',
        '',
        'require github.com/google/uuid v1.6.0',
        '',
        'require (',
        '\tgithub.com/gin-gonic/gin v1.9.1',
        '\tgithub.com/jackc/pgx/v5 v5.5.0',
        '\tgolang.org/x/net v0.20.0 // indirect',
        ')',
      ].join('\n'),
    },
    expected: { language: 'go', framework: 'gin', manifestType: 'go.mod', dependencies: ['github.com/google/uuid', 'github.com/gin-gonic/gin', 'github.com/jackc/pgx/v5'] },
  },
  'java-maven-spring': {
    files: {
      'pom.xml': [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<project xmlns="http://maven.apache.org/POM/4.0.0">',
        '  <parent><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-parent</artifactId><version>3.2.0</version></parent>',
        '  <dependencies>',
        '    <dependency>',
        '      <groupId>org.springframework.boot</groupId>',
        '      <artifactId>spring-boot-starter-web</artifactId>',
        '    </dependency>',
        '    <!-- <dependency><groupId>commented</groupId><artifactId>out</artifactId></dependency> -->',
        '    <dependency><groupId>org.postgresql</groupId><artifactId>postgresql</artifactId><scope>runtime</scope></dependency>',
        '  </dependencies>',
        '</project>',
      ].join('\n'),
    },
    expected: {
      language: 'java',
      framework: 'spring-boot',
      manifestType: 'pom.xml',
      dependencies: ['org.springframework.boot:spring-boot-starter-parent', 'org.springframework.boot:spring-boot-starter-web', 'org.postgresql:postgresql'],
    },
  },
  'kotlin-gradle-ktor': {
    files: {
      'build.gradle.kts': [
        'plugins {',
        '    kotlin("jvm") version "1.9.22"',
        '    id("io.ktor.plugin") version "2.3.8"',
        '}',
        'dependencies {',
        '    implementation("io.ktor:ktor-server-core-jvm:2.3.8")',
        '    implementation(platform("org.jetbrains.kotlinx:kotlinx-coroutines-bom:1.8.0"))',
        '    testImplementation("org.jetbrains.kotlin:kotlin-test-junit")',
        '}',
      ].join('\n'),
    },
    expected: {
      language: 'kotlin',
      framework: 'ktor',
      manifestType: 'build.gradle.kts',
      dependencies: ['io.ktor.plugin', 'io.ktor:ktor-server-core-jvm', 'org.jetbrains.kotlinx:kotlinx-coroutines-bom', 'org.jetbrains.kotlin:kotlin-test-junit'],
    },
  },
  'java-gradle-groovy': {
    files: {
      'build.gradle': "plugins {\n  id 'java'\n}\ndependencies {\n  implementation group: 'com.google.guava', name: 'guava', version: '33.0.0-jre'\n  testImplementation 'junit:junit:4.13.2'\n}\n",
    },
    expected: { language: 'java', framework: UNKNOWN, manifestType: 'build.gradle', dependencies: ['com.google.guava:guava', 'junit:junit'] },
  },
  'ruby-rails': {
    files: {
      Gemfile: "source 'https://rubygems.org'\nruby '3.3.0'\ngem 'rails', '~> 7.1'\ngem \"pg\"\ngroup :development do\n  gem 'rubocop', require: false\nend\n# gem 'commented'\n",
    },
    expected: { language: 'ruby', framework: 'rails', manifestType: 'Gemfile', dependencies: ['rails', 'pg', 'rubocop'] },
  },
};

describe('classifyProject on manifest fixtures', () => {
  it.each(Object.entries(FIXTURES))('classifies %s', async (name, { files, expected }) => {
    const profile = await classifyProject(fixture(name, files));
    expect(profile).toMatchObject({ ...expected, scope: UNKNOWN, agentsmdHash: NO_AGENTS_MD_HASH });
    expect(profile.path).toBe(path.join(root, name));
  });

  it('prefers package.json over composer.json, as the manifest order says', async () => {
    const dir = fixture('both-node-php', {
      'package.json': JSON.stringify({ dependencies: { vue: '3' } }),
      'composer.json': JSON.stringify({ require: { 'laravel/framework': '11' } }),
    });
    expect(await classifyProject(dir)).toMatchObject({ language: 'javascript', framework: 'vue', manifestType: 'package.json' });
  });

  it('takes language, framework and scope from AGENTS.md over the manifests, and hashes it', async () => {
    const agentsMd = '# Shop\n\n- **Language**: TypeScript\n- **Framework:** Next.js\n- Scope: E-commerce storefront\n';
    const dir = fixture('agents-and-manifest', {
      'AGENTS.md': agentsMd,
      'package.json': JSON.stringify({ dependencies: { react: '18' } }),
    });
    const profile = await classifyProject(dir);
    expect(profile).toMatchObject({ language: 'typescript', framework: 'next.js', scope: 'E-commerce storefront', dependencies: ['react'] });
    expect(profile.agentsmdHash).toBe(createHash('sha256').update(agentsMd).digest('hex'));
  });

  it('classifies a project with only AGENTS.md from what it states', async () => {
    const dir = fixture('agents-only', {
      'AGENTS.md': '# Notes\n\n| Field | Value |\n|---|---|\n| Language | PHP |\n| Scope | CMS |\n\n## Framework\n\nWordPress\n',
    });
    expect(await classifyProject(dir)).toMatchObject({
      language: 'php',
      framework: 'wordpress',
      scope: 'CMS',
      dependencies: [],
      manifestType: UNKNOWN,
    });
  });

  it('gives "unknown" for malformed manifests and odd markdown, without throwing', async () => {
    const dir = fixture('malformed', {
      'AGENTS.md': '```\nLanguage: inside a code fence\n```\n## Scope\n## Another heading\n**Framework**:\n\u0000\u0001 binary \uFFFD',
      'package.json': '{ "dependencies": { "react": ',
      'composer.json': '[1, 2',
      'Cargo.toml': '[dependencies\naxum = ',
      'pyproject.toml': 'dependencies = [',
      'go.mod': 'require github.com/gin-gonic/gin v1.9.1\n',
      'pom.xml': '<dependency><groupId>a</groupId><artifactId>b</artifactId></dependency>',
    });
    expect(await classifyProject(dir)).toMatchObject({ language: UNKNOWN, framework: UNKNOWN, scope: UNKNOWN, dependencies: [], manifestType: UNKNOWN });
  });

  it('falls through a malformed manifest to the next family', async () => {
    const dir = fixture('malformed-then-go', { 'package.json': 'not json', 'go.mod': 'module x\nrequire github.com/go-chi/chi/v5 v5.0.12\n' });
    expect(await classifyProject(dir)).toMatchObject({ language: 'go', framework: 'chi', manifestType: 'go.mod', dependencies: ['github.com/go-chi/chi/v5'] });
  });

  it('classifies an empty folder as unknown everywhere', async () => {
    const now = new Date('2025-01-02T03:04:05.000Z');
    expect(await classifyProject(fixture('empty', {}), { now: () => now })).toEqual({
      path: path.join(root, 'empty'),
      language: UNKNOWN,
      framework: UNKNOWN,
      scope: UNKNOWN,
      dependencies: [],
      manifestType: UNKNOWN,
      classifiedAt: now.toISOString(),
      agentsmdHash: NO_AGENTS_MD_HASH,
    });
  });

  it('never reads .env files and skips manifests that are folders or too big', async () => {
    const dir = fixture('odd-files', { '.env': 'Language: secret\nAPI_KEY=x', 'package.json/keep': '', 'composer.json': ' '.repeat(MAX_PROJECT_FILE_BYTES + 1) });
    fs.chmodSync(path.join(dir, '.env'), 0o000);
    expect(await classifyProject(dir)).toMatchObject({ language: UNKNOWN, manifestType: UNKNOWN });
  });

  it('refuses a path that is not a folder with a clear error', async () => {
    await expect(classifyProject(path.join(root, 'does-not-exist'))).rejects.toThrow(InputError);
    await expect(classifyProject(path.join(root, 'does-not-exist'))).rejects.toThrow(/not a folder/);
  });
});

describe('AGENTS.md reading', () => {
  it.each([
    ['Language: Rust', { language: 'Rust' }],
    ['* **Scope**: CLI tool.', { scope: 'CLI tool' }],
    ['> Domain = API', { scope: 'API' }],
    ['Framework: `Laravel`', { framework: 'Laravel' }],
    ['Primary language: [Go](https://go.dev)', { language: 'Go' }],
    ['## Language\n\nPython 3.12\n', { language: 'Python 3.12' }],
    ['Languages we avoid: Perl', {}],
    [`Scope: ${'x'.repeat(200)}`, {}],
  ])('reads %p', (text, expected) => {
    expect(parseAgentsMd(text)).toEqual(expected);
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        const facts = parseAgentsMd(text);
        for (const value of Object.values(facts)) expect(typeof value).toBe('string');
      }),
    );
  });
});

describe('line parsers', () => {
  it('go.mod without a module line is not a go.mod', () => {
    expect(parseGoMod('require a v1\n')).toBeUndefined();
  });

  it('requirements.txt skips URLs, paths and options', () => {
    expect(parseRequirementsTxt('./local\nhttps://example.test/x.whl\n--hash=sha256:abc\nname @ https://x.test/a.zip\n')?.dependencies).toEqual(['name']);
  });

  it('pom.xml that is not a project is undefined; a gradle file without dependencies has none', () => {
    expect(parsePomXml('<settings></settings>')).toBeUndefined();
    expect(parseBuildGradle('// empty\n')?.dependencies).toEqual([]);
  });
});
