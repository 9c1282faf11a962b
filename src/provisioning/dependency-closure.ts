/**
 * The runtime dependencies a package needs, found through the package.json dependency graph the way
 * Node resolves imports, and laid out as a `node_modules` tree that resolves the same way once copied
 * into a folder of its own. Optional dependencies are included when they are on disk (the platform's
 * prebuilt binaries), skipped when not.
 */
import fs from 'node:fs';
import path from 'node:path';

/** One package to copy: where it is now, and its folder relative to the new root. */
export interface PackageCopy {
  name: string;
  version: string;
  sourceDir: string;
  targetDir: string;
  /** Only these files (relative paths); undefined means the whole package except `node_modules`. */
  files?: readonly string[];
}

/** A package of which only part is used at run time: those files, and the dependencies they import. */
export interface PartialPackage {
  files: readonly string[];
  dependencies: readonly string[];
}

interface Manifest {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** Reads a package.json; throws with the file's path when it is missing or not JSON. */
export function readManifest(packageDir: string): Manifest {
  const file = path.join(packageDir, 'package.json');
  const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${file} is not a package.json object`);
  return value as Manifest;
}

/** Where Node would find package `name` when imported from a file in `fromDir`, if anywhere. */
export function resolvePackageDir(name: string, fromDir: string): string | undefined {
  for (let dir = path.resolve(fromDir); ; dir = path.dirname(dir)) {
    if (path.basename(dir) !== 'node_modules') {
      const candidate = path.join(dir, 'node_modules', name);
      if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The `node_modules/<name>` folders Node tries, nearest first, from a package at `targetDir` ('' = root). */
function lookupChain(targetDir: string, name: string): string[] {
  const chain: string[] = [];
  const parts = targetDir === '' ? [] : targetDir.split(path.sep);
  for (let depth = parts.length; depth >= 0; depth -= 1) {
    const dir = parts.slice(0, depth);
    if (dir[dir.length - 1] === 'node_modules') continue;
    chain.push(path.join(...dir, 'node_modules', name));
  }
  return chain;
}

interface Node {
  sourceDir: string;
  targetDir: string;
  dependencies: { name: string; optional: boolean }[];
}

function dependenciesOf(manifest: Manifest, partial: PartialPackage | undefined): Node['dependencies'] {
  if (partial) return partial.dependencies.map((name) => ({ name, optional: false }));
  return [
    ...Object.keys(manifest.dependencies ?? {}).map((name) => ({ name, optional: false })),
    ...Object.keys(manifest.optionalDependencies ?? {}).map((name) => ({ name, optional: true })),
  ];
}

/**
 * The packages `rootDir`'s dependencies need at run time, each placed where a copy of the tree
 * resolves it: shared copies as high as possible, a second version nested under the package that
 * needs it. Throws when a required dependency is not installed.
 */
export function runtimeClosure(rootDir: string, partials: Readonly<Record<string, PartialPackage>> = {}): PackageCopy[] {
  const claimed = new Map<string, string>();
  const copies: PackageCopy[] = [];
  const queue: Node[] = [{ sourceDir: rootDir, targetDir: '', dependencies: dependenciesOf(readManifest(rootDir), undefined) }];
  // Breadth first: a package's own dependencies are all placed before any of theirs, so a later
  // nested copy can never shadow a lookup that was already settled.
  for (let next = queue.shift(); next; next = queue.shift()) {
    for (const dependency of next.dependencies) {
      const sourceDir = resolvePackageDir(dependency.name, next.sourceDir);
      if (!sourceDir) {
        if (dependency.optional) continue;
        throw new Error(`cannot find "${dependency.name}" (needed by ${next.sourceDir}); run npm install first`);
      }
      const realSource = fs.realpathSync(sourceDir);
      const chain = lookupChain(next.targetDir, dependency.name);
      const hit = chain.find((candidate) => claimed.has(candidate));
      if (hit !== undefined && claimed.get(hit) === realSource) continue;
      // Nothing visible yet: share it from the top. A different version is visible: shadow it.
      const targetDir = hit === undefined ? (chain[chain.length - 1] as string) : (chain[0] as string);
      claimed.set(targetDir, realSource);
      const manifest = readManifest(sourceDir);
      const partial = partials[dependency.name];
      copies.push({ name: dependency.name, version: manifest.version ?? '', sourceDir, targetDir, ...(partial ? { files: partial.files } : {}) });
      queue.push({ sourceDir, targetDir, dependencies: dependenciesOf(manifest, partial) });
    }
  }
  return copies;
}
