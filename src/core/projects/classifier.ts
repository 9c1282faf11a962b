/**
 * Classifies a project folder: language, framework, scope and dependencies, from what its
 * AGENTS.md states first, then from the first manifest family found, in this order: package.json,
 * composer.json, Cargo.toml, pyproject.toml / requirements.txt, go.mod, pom.xml / build.gradle,
 * Gemfile. Read-only; it opens only the files named here (never `.env`), and only regular files
 * of a bounded size. A malformed manifest counts as absent; what cannot be determined is "unknown".
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../validation.js';
import { UNKNOWN } from '../types.js';
import type { ProjectProfile } from '../types.js';
import { parseAgentsMd } from './agents-md.js';
import { detectFramework } from './frameworks.js';
import { parseCargoToml } from './manifests/cargo-toml.js';
import { parseComposerJson } from './manifests/composer-json.js';
import { parseGemfile } from './manifests/gemfile.js';
import { parseGoMod } from './manifests/go-mod.js';
import { parseBuildGradle, parsePomXml } from './manifests/jvm.js';
import { parsePackageJson } from './manifests/package-json.js';
import { parsePyprojectToml, parseRequirementsTxt } from './manifests/python.js';
import type { ManifestFacts, ManifestParser } from './manifests/types.js';
import { unique } from './manifests/types.js';

/** The agentsmdHash of a project without an AGENTS.md. */
export const NO_AGENTS_MD_HASH = '';
export const AGENTS_MD = 'AGENTS.md';
/** Bigger files are not manifests worth reading (a generated lock file in disguise, a mistake). */
export const MAX_PROJECT_FILE_BYTES = 1024 * 1024;
/** Profiles keep at most this many dependency names. */
export const MAX_DEPENDENCIES = 200;

/** One manifest family: its files in preference order; their dependencies are merged. */
interface ManifestFamily {
  files: readonly { name: string; parse: ManifestParser }[];
}

/** Builds the manifest families for a folder (package.json needs to know about tsconfig.json). */
function manifestFamilies(hasTsconfig: boolean): ManifestFamily[] {
  return [
    { files: [{ name: 'package.json', parse: (text) => parsePackageJson(text, hasTsconfig) }] },
    { files: [{ name: 'composer.json', parse: parseComposerJson }] },
    { files: [{ name: 'Cargo.toml', parse: parseCargoToml }] },
    {
      files: [
        { name: 'pyproject.toml', parse: parsePyprojectToml },
        { name: 'requirements.txt', parse: parseRequirementsTxt },
      ],
    },
    { files: [{ name: 'go.mod', parse: parseGoMod }] },
    {
      files: [
        { name: 'pom.xml', parse: parsePomXml },
        { name: 'build.gradle', parse: parseBuildGradle },
        { name: 'build.gradle.kts', parse: parseBuildGradle },
      ],
    },
    { files: [{ name: 'Gemfile', parse: parseGemfile }] },
  ];
}

/** The text of a regular file in `directory`, or undefined when absent, unreadable, or too big. */
async function readProjectFile(directory: string, name: string): Promise<string | undefined> {
  const file = path.join(directory, name);
  try {
    const stats = await fs.stat(file);
    if (!stats.isFile() || stats.size > MAX_PROJECT_FILE_BYTES) return undefined;
    return await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The sha256 of an AGENTS.md text, for noticing that it changed. */
export function hashAgentsMd(text: string | undefined): string {
  return text === undefined ? NO_AGENTS_MD_HASH : createHash('sha256').update(text).digest('hex');
}

interface FoundManifest {
  manifestType: string;
  facts: ManifestFacts;
}

/** The first family with a usable file; the family's usable files are merged. */
async function findManifest(directory: string, families: readonly ManifestFamily[]): Promise<FoundManifest | undefined> {
  for (const family of families) {
    let found: FoundManifest | undefined;
    for (const file of family.files) {
      const text = await readProjectFile(directory, file.name);
      const facts = text === undefined ? undefined : file.parse(text);
      if (!facts) continue;
      if (found) found.facts.dependencies = unique([...found.facts.dependencies, ...facts.dependencies]);
      else found = { manifestType: file.name, facts };
    }
    if (found) return found;
  }
  return undefined;
}

/** Lowercases a stated language or framework so profiles compare alike ("Next.js" = "next.js"). */
function normalizeName(value: string | undefined): string | undefined {
  return value?.toLowerCase();
}

export interface ClassifyOptions {
  now?: () => Date;
}

/**
 * Classifies the project at `projectPath` (made absolute).
 * @throws InputError when the path is not a folder.
 */
export async function classifyProject(projectPath: string, options: ClassifyOptions = {}): Promise<ProjectProfile> {
  const directory = path.resolve(projectPath);
  const stats = await fs.stat(directory).catch(() => undefined);
  if (!stats?.isDirectory()) throw new InputError(`cannot classify "${directory}": it is not a folder`);

  const agentsMdText = await readProjectFile(directory, AGENTS_MD);
  const stated = agentsMdText === undefined ? {} : parseAgentsMd(agentsMdText);
  const hasTsconfig = (await fs.stat(path.join(directory, 'tsconfig.json')).catch(() => undefined))?.isFile() ?? false;
  const manifest = await findManifest(directory, manifestFamilies(hasTsconfig));
  const dependencies = manifest?.facts.dependencies.slice(0, MAX_DEPENDENCIES) ?? [];
  const detected = manifest ? detectFramework(manifest.facts.ecosystem, manifest.facts.dependencies) : undefined;

  return {
    path: directory,
    language: normalizeName(stated.language) ?? manifest?.facts.language ?? UNKNOWN,
    framework: normalizeName(stated.framework) ?? detected ?? UNKNOWN,
    scope: stated.scope ?? UNKNOWN,
    dependencies,
    manifestType: manifest?.manifestType ?? UNKNOWN,
    classifiedAt: (options.now?.() ?? new Date()).toISOString(),
    agentsmdHash: hashAgentsMd(agentsMdText),
  };
}
