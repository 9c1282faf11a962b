/**
 * A tiny npm registry on 127.0.0.1 for installs that may not leave the machine: it serves the
 * packages of a runtime dependency closure as they are installed in this checkout's node_modules
 * (one packument per name, one tarball per version, made with `tar` from the installed folder).
 * Names it does not hold get 404 (optional dependencies for other platforms are then skipped by npm).
 * It stops by itself after `lifetimeMs`. Making the tarballs is the costly part (seconds of gzip per
 * run); `packRegistry` does it once so that several servers can serve the same files.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface RegistryPackage {
  name: string;
  version: string;
  /** The installed package folder (its package.json and files, without nested node_modules). */
  sourceDir: string;
}

export interface LocalRegistry {
  url: string;
  /** Package names requested, in order (packuments only), to see what the installer asked for. */
  requested: string[];
  close(): Promise<void>;
}

export interface ServedVersion {
  manifest: Record<string, unknown>;
  file: string;
  integrity: string;
  shasum: string;
}

/** What a registry serves: name → version → tarball. Plain data, so it can be written to a file and shared. */
export type RegistryIndex = Record<string, Record<string, ServedVersion>>;

/** `package/…` tarball of an installed package folder, the layout npm publishes. */
function packFolder(pkg: RegistryPackage, outDir: string): string {
  const file = path.join(outDir, `${pkg.name.replace('/', '__')}-${pkg.version}.tgz`);
  execFileSync('tar', ['-czf', file, '--exclude=./node_modules', '--transform', 's,^\\.,package,', '-C', pkg.sourceDir, '.'], { timeout: 60_000 });
  return file;
}

/** Writes the tarballs of `packages` into `workDir`; returns what a registry serving them holds. */
export function packRegistry(packages: readonly RegistryPackage[], workDir: string): RegistryIndex {
  fs.mkdirSync(workDir, { recursive: true });
  const index: RegistryIndex = {};
  for (const pkg of packages) {
    const versions = (index[pkg.name] ??= {});
    if (versions[pkg.version]) continue;
    const file = packFolder(pkg, workDir);
    const bytes = fs.readFileSync(file);
    versions[pkg.version] = {
      manifest: JSON.parse(fs.readFileSync(path.join(pkg.sourceDir, 'package.json'), 'utf8')) as Record<string, unknown>,
      file,
      integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
      shasum: createHash('sha1').update(bytes).digest('hex'),
    };
  }
  return index;
}

/** Serves `index` (tarballs made by `packRegistry`) on 127.0.0.1 until closed or `lifetimeMs` has passed. */
export async function serveRegistry(index: RegistryIndex, lifetimeMs = 600_000): Promise<LocalRegistry> {
  const files = new Map(Object.values(index).flatMap((versions) => Object.values(versions).map((served) => [path.basename(served.file), served.file] as const)));
  const requested: string[] = [];
  let base = '';
  const server = http.createServer((request, response) => {
    const url = decodeURIComponent((request.url ?? '/').split('?')[0] as string);
    const tarball = /^\/-\/tarballs\/(.+)$/.exec(url);
    if (tarball) {
      const file = files.get(path.basename(tarball[1] as string));
      if (!file || !fs.existsSync(file)) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      return void fs.createReadStream(file).pipe(response);
    }
    const name = url.slice(1);
    requested.push(name);
    const versions = Object.hasOwn(index, name) ? index[name] : undefined;
    if (!versions) return void response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    const entries = Object.entries(versions);
    const packument = {
      name,
      'dist-tags': { latest: entries[entries.length - 1]?.[0] },
      versions: Object.fromEntries(
        entries.map(([version, served]) => [
          version,
          { ...served.manifest, name, version, dist: { tarball: `${base}/-/tarballs/${path.basename(served.file)}`, integrity: served.integrity, shasum: served.shasum } },
        ]),
      ),
    };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const stopTimer = setTimeout(() => server.close(), lifetimeMs);
  stopTimer.unref();
  return {
    url: `${base}/`,
    requested,
    close: () =>
      new Promise<void>((resolve) => {
        clearTimeout(stopTimer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts the registry for `packages`, writing tarballs into `workDir`. */
export async function startLocalRegistry(packages: readonly RegistryPackage[], workDir: string, lifetimeMs = 600_000): Promise<LocalRegistry> {
  return serveRegistry(packRegistry(packages, workDir), lifetimeMs);
}
