/**
 * The runtime dependency closure: every package a copied tree imports resolves, inside the copy, to
 * the same package it resolves to where npm installed it. Checked on synthetic node_modules trees
 * (nesting, two versions, optional platform packages) and on this repository's own dependencies.
 */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { readManifest, resolvePackageDir, runtimeClosure } from '../../src/provisioning/dependency-closure.js';
import type { PackageCopy } from '../../src/provisioning/dependency-closure.js';
import { ROOT } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-closure-');

interface FakePackage {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

function writePackage(dir: string, name: string, manifest: FakePackage = {}): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: manifest.version ?? '1.0.0', ...manifest }));
  fs.writeFileSync(path.join(dir, 'index.js'), `export const name = ${JSON.stringify(`${name}@${manifest.version ?? '1.0.0'}`)};\n`);
  return dir;
}

/** Node's lookup over the copied layout: the nearest `node_modules/<name>` among the copies. */
function resolveInCopy(copies: PackageCopy[], fromTarget: string, name: string): PackageCopy | undefined {
  const parts = fromTarget === '' ? [] : fromTarget.split(path.sep);
  for (let depth = parts.length; depth >= 0; depth -= 1) {
    const dir = parts.slice(0, depth);
    if (dir[dir.length - 1] === 'node_modules') continue;
    const candidate = path.join(...dir, 'node_modules', name);
    const found = copies.find((copy) => copy.targetDir === candidate);
    if (found) return found;
  }
  return undefined;
}

/** Every dependency of every copied package (and of the root) resolves in the copy as on disk. */
function expectSameResolution(root: string, copies: PackageCopy[], skip: ReadonlySet<string> = new Set()): void {
  const owners: { sourceDir: string; targetDir: string; name: string }[] = [{ sourceDir: root, targetDir: '', name: '(root)' }, ...copies];
  for (const owner of owners) {
    if (skip.has(owner.name)) continue;
    const manifest = readManifest(owner.sourceDir);
    const deps = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {})];
    for (const dep of deps) {
      const onDisk = resolvePackageDir(dep, owner.sourceDir);
      const inCopy = resolveInCopy(copies, owner.targetDir, dep);
      if (!onDisk) {
        expect(inCopy).toBeUndefined();
        continue;
      }
      expect({ owner: owner.name, dep, source: inCopy && fs.realpathSync(inCopy.sourceDir) }).toEqual({ owner: owner.name, dep, source: fs.realpathSync(onDisk) });
    }
  }
}

describe('runtimeClosure', () => {
  it('keeps two versions of one package apart, each where its user finds it', () => {
    const root = tempDir();
    writePackage(root, 'app', { dependencies: { a: '1', b: '1' } });
    const modules = path.join(root, 'node_modules');
    writePackage(path.join(modules, 'a'), 'a', { dependencies: { c: '1' } });
    writePackage(path.join(modules, 'a', 'node_modules', 'c'), 'c', { version: '1.0.0' });
    writePackage(path.join(modules, 'b'), 'b', { dependencies: { c: '2', d: '1' } });
    writePackage(path.join(modules, 'c'), 'c', { version: '2.0.0', dependencies: { d: '1' } });
    writePackage(path.join(modules, 'd'), 'd');

    const copies = runtimeClosure(root);
    expectSameResolution(root, copies);
    expect(copies.filter((copy) => copy.name === 'c').map((copy) => copy.version).sort()).toEqual(['1.0.0', '2.0.0']);
    expect(copies.filter((copy) => copy.name === 'd')).toHaveLength(1);
  });

  it('includes optional (platform) packages that are installed and skips those that are not', () => {
    const root = tempDir();
    writePackage(root, 'app', { dependencies: { native: '1' } });
    const modules = path.join(root, 'node_modules');
    writePackage(path.join(modules, 'native'), 'native', { optionalDependencies: { '@native/linux-x64': '1', '@native/darwin-arm64': '1' } });
    writePackage(path.join(modules, '@native', 'linux-x64'), '@native/linux-x64');

    const copies = runtimeClosure(root);
    expect(copies.map((copy) => copy.targetDir).sort()).toEqual([path.join('node_modules', '@native', 'linux-x64'), path.join('node_modules', 'native')]);
    expectSameResolution(root, copies);
  });

  it('fails with the missing package and who needs it when a required dependency is not installed', () => {
    const root = tempDir();
    writePackage(root, 'app', { dependencies: { a: '1' } });
    writePackage(path.join(root, 'node_modules', 'a'), 'a', { dependencies: { gone: '1' } });
    expect(() => runtimeClosure(root)).toThrow(/cannot find "gone" \(needed by .*node_modules\/a\)/);
  });

  it('copies only the named files of a partial package, with only the dependencies they use', () => {
    const root = tempDir();
    writePackage(root, 'app', { dependencies: { big: '1' } });
    const modules = path.join(root, 'node_modules');
    writePackage(path.join(modules, 'big'), 'big', { dependencies: { heavy: '1', small: '1' } });
    writePackage(path.join(modules, 'heavy'), 'heavy');
    writePackage(path.join(modules, 'small'), 'small');

    const copies = runtimeClosure(root, { big: { files: ['package.json', 'index.js'], dependencies: ['small'] } });
    expect(copies.map((copy) => copy.name).sort()).toEqual(['big', 'small']);
    expect(copies.find((copy) => copy.name === 'big')?.files).toEqual(['package.json', 'index.js']);
  });

  it("lays out this package's real dependencies so each resolves as installed", () => {
    const partial = { '@opencode-ai/plugin': { files: ['package.json', 'dist/tool.js'], dependencies: ['zod'] } };
    const copies = runtimeClosure(ROOT, partial);
    const names = new Set(copies.map((copy) => copy.name));
    for (const runtime of ['lmdb', 'msgpackr', 'ordered-binary', 'weak-lru-cache', 'node-gyp-build-optional-packages', 'figlet', 'simple-git', 'jsonc-parser', 'smol-toml', 'zod']) {
      expect(names).toContain(runtime);
    }
    expect(names).not.toContain('effect');
    expect(names).not.toContain('@opencode-ai/sdk');
    // The prebuilt lmdb binary for this platform is an optional dependency present on disk.
    expect(names).toContain(`@lmdb/lmdb-${process.platform}-${process.arch}`);
    expectSameResolution(ROOT, copies, new Set(['@opencode-ai/plugin']));
  });
});
