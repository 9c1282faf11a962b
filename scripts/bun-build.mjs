/* global Bun -- this script runs only under Bun (bundle-dist.mjs starts it so). */
/**
 * Run by bundle-dist.mjs under the Bun inside the `opencode` binary (`BUN_BE_BUN=1 opencode
 * scripts/bun-build.mjs '<options as JSON>'`): one target's bundle through `Bun.build`, which takes
 * plugins where `bun build` on the command line does not. Prints the bundler's messages and exits 1
 * when it fails.
 *
 * The one plugin is for packages carried in the bundle whose code reads `import.meta.url` to find its
 * own files: lmdb finds its native add-on and its compression dictionary so. In a bundle that URL is
 * the bundle's. Each such use becomes the URL the file has in the package's installed folder, found at
 * run time by module resolution from the bundle's file (the way the bundle found the package when it
 * stayed external), so the package reads what it read before; the package found there must be the
 * version the bundle carries (package.json pins lmdb exactly, as lmdb pins its add-on). The store's worker thread then loads
 * lmdb and its msgpackr in one chunk instead of about twenty modules of five packages
 * (docs/PERFORMANCE.md, thirty-first pass).
 */
import path from 'node:path';

/** A call of `eval` itself (not `.eval(`, not `new Function`), in a bundled package's file. */
const DIRECT_EVAL = /(?<![.\w$])eval\s*\(/;

/** The module every rewritten file imports its URL helper from. */
const HELPER = 'agent-tracker:installed-url';

/**
 * `installedUrl(chain, file, version)`: the URL of `file` in the installed package reached by `chain` (a
 * package name resolved from the bundle, then each next one from the one before: lmdb's own copy of
 * msgpackr is `["lmdb", "msgpackr"]`). A package's folder is the nearest one above its resolved entry
 * with a package.json. The package installed there must be the `version` the bundle carries: lmdb's
 * JavaScript and its native add-on go together, so another version throws (the store's worker then
 * fails to start, and the plugin says so in one line) instead of calling an add-on it does not match.
 */
const HELPER_SOURCE = `import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
const folders = new Map();
function folderOf(chain, version) {
  const key = chain.join('>');
  let folder = folders.get(key);
  if (folder === undefined) {
    let from = import.meta.url;
    for (const name of chain) {
      folder = dirname(createRequire(from).resolve(name));
      while (!existsSync(join(folder, 'package.json')) && dirname(folder) !== folder) folder = dirname(folder);
      from = pathToFileURL(join(folder, 'package.json')).href;
    }
    const installed = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).version;
    if (installed !== version) {
      throw new Error(chain.join(' > ') + ' ' + installed + ' is installed at ' + folder + ', but agent-tracker was built with ' + version + '; reinstall agent-tracker');
    }
    folders.set(key, folder);
  }
  return folder;
}
export function installedUrl(chain, file, version) {
  return pathToFileURL(join(folderOf(chain, version), file)).href;
}
`;

/** The packages a bundled file sits in, outermost first (one per `node_modules` of its path), the last one's folder, and the file's path inside it. */
function packageFile(file) {
  const parts = file.split(path.sep);
  const chain = [];
  let at = parts.indexOf('node_modules');
  let rest = [];
  let folder = '';
  while (at >= 0) {
    const nameLength = parts[at + 1]?.startsWith('@') ? 2 : 1;
    chain.push(parts.slice(at + 1, at + 1 + nameLength).join('/'));
    folder = parts.slice(0, at + 1 + nameLength).join(path.sep);
    rest = parts.slice(at + 1 + nameLength);
    const next = rest.indexOf('node_modules');
    at = next < 0 ? -1 : at + 1 + nameLength + next;
  }
  return chain.length > 0 ? { chain, file: rest.join('/'), folder } : undefined;
}

/**
 * The plugin: files of `packages` (and of packages installed inside them) read their installed URL; a
 * file of any other bundled package that reads `import.meta.url` fails the build (it would look beside
 * the bundle for its own files).
 */
function installedUrls(packages) {
  const names = new Set(packages);
  return {
    name: 'installed-url',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${HELPER}$`) }, () => ({ path: HELPER, namespace: 'installed-url' }));
      build.onLoad({ filter: /.*/, namespace: 'installed-url' }, () => ({ contents: HELPER_SOURCE, loader: 'js' }));
      build.onLoad({ filter: /[\\/]node_modules[\\/].*\.[cm]?js$/ }, async ({ path: file }) => {
        const text = await Bun.file(file).text();
        // A direct eval sees the module's variables by their names, which the bundle renames at will.
        if (DIRECT_EVAL.test(text)) throw new Error(`${file} calls eval: its package must stay external (bundle-dist.mjs, externalAlso)`);
        if (!text.includes('import.meta.url')) return { contents: text, loader: 'js' };
        const owner = packageFile(file);
        if (!owner || !names.has(owner.chain[0])) throw new Error(`${file} reads import.meta.url: bundle-dist.mjs must list its package among those that read their installed URL, or leave it external`);
        const { version } = JSON.parse(await Bun.file(path.join(owner.folder, 'package.json')).text());
        const url = `installedUrl(${JSON.stringify(owner.chain)}, ${JSON.stringify(owner.file)}, ${JSON.stringify(version)})`;
        return { contents: `import { installedUrl } from '${HELPER}';\n${text.replaceAll('import.meta.url', url)}`, loader: 'js' };
      });
    },
  };
}

const options = JSON.parse(process.argv[2]);
const result = await Bun.build({
  entrypoints: options.entries,
  root: options.root,
  outdir: options.outDir,
  target: 'node',
  format: 'esm',
  splitting: true,
  external: options.external,
  minify: { whitespace: true, syntax: true },
  sourcemap: 'linked',
  naming: { chunk: `${options.chunkPrefix}[name]-[hash].[ext]` },
  ...(options.banner ? { banner: options.banner } : {}),
  plugins: [installedUrls(options.installedUrlPackages)],
  throw: false,
});
for (const log of result.logs) console.error(String(log));
process.exit(result.success ? 0 : 1);
