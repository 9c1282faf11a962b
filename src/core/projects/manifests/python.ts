/**
 * Python: `pyproject.toml` (PEP 621, PEP 735 dependency groups, Poetry, PDM) and `requirements.txt`.
 * Names are normalized as pip compares them (lowercase, runs of `-_.` become `-`).
 */
import { parseTomlObject } from './toml.js';
import type { ManifestFacts } from './types.js';
import { isTable, unique } from './types.js';

/** The distribution name at the start of a PEP 508 requirement (`Django>=4; python_version>"3.8"`). */
const REQUIREMENT_NAME = /^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)/;

/** The name as pip compares it. */
export function normalizePythonName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

function requirementName(requirement: unknown): string | undefined {
  if (typeof requirement !== 'string') return undefined;
  const match = REQUIREMENT_NAME.exec(requirement);
  return match?.[1] ? normalizePythonName(match[1]) : undefined;
}

/** Names from a list of requirement strings (other entries, e.g. `{include-group = "x"}`, are skipped). */
function namesOfList(list: unknown): string[] {
  return Array.isArray(list) ? list.flatMap((item) => requirementName(item) ?? []) : [];
}

/** Names from a table of requirement lists (optional-dependencies, dependency-groups). */
function namesOfListTable(table: unknown): string[] {
  return isTable(table) ? Object.values(table).flatMap(namesOfList) : [];
}

/** Names from a Poetry-style table whose keys are the names; `python` is the interpreter. */
function namesOfKeyTable(table: unknown): string[] {
  return isTable(table) ? Object.keys(table).filter((name) => name.toLowerCase() !== 'python').map(normalizePythonName) : [];
}

export function parsePyprojectToml(text: string): ManifestFacts | undefined {
  const manifest = parseTomlObject(text);
  if (!manifest) return undefined;
  const project = isTable(manifest.project) ? manifest.project : {};
  const tool = isTable(manifest.tool) ? manifest.tool : {};
  const poetry = isTable(tool.poetry) ? tool.poetry : {};
  const pdm = isTable(tool.pdm) ? tool.pdm : {};
  const poetryGroups = isTable(poetry.group) ? Object.values(poetry.group) : [];
  const dependencies = [
    ...namesOfList(project.dependencies),
    ...namesOfListTable(project['optional-dependencies']),
    ...namesOfListTable(manifest['dependency-groups']),
    ...namesOfKeyTable(poetry.dependencies),
    ...namesOfKeyTable(poetry['dev-dependencies']),
    ...poetryGroups.flatMap((group) => (isTable(group) ? namesOfKeyTable(group.dependencies) : [])),
    ...namesOfListTable(pdm['dev-dependencies']),
  ];
  return { ecosystem: 'python', language: 'python', dependencies: unique(dependencies) };
}

/**
 * requirements.txt: one requirement per line. Options (`-r other.txt`, `-e .`, `--index-url`),
 * comments, and bare paths or URLs are not package names and are skipped.
 */
export function parseRequirementsTxt(text: string): ManifestFacts | undefined {
  const dependencies: string[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.replace(/(^|\s)#.*$/, '').trim();
    if (line === '' || line.startsWith('-') || line.startsWith('.') || line.startsWith('/') || /^[a-z+]+:\/\//i.test(line)) continue;
    const name = requirementName(line);
    if (name) dependencies.push(name);
  }
  return { ecosystem: 'python', language: 'python', dependencies: unique(dependencies) };
}
