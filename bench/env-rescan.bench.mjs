/**
 * The plugin's scan for `.env` files, which it repeats every 30 s while tools run in a session
 * (src/opencode/guards/project-secrets.ts): a rescan of a project whose folders did not change
 * (one `stat` per folder), and one after a file was added to one folder, against a full scan of the
 * same tree (every folder listed), measured in the same run. The tree: 2,000 folders of 10 files
 * each, about the size of a mid-sized repository without its dependencies.
 */
import fs from 'node:fs';
import path from 'node:path';
import { findEnvFiles } from '../dist/opencode/guards/project-secrets.js';
import { median, removeDir, tempDir } from './support.mjs';

const FOLDERS = 2_000;
const FILES_PER_FOLDER = 10;
const HOUR_MS = 3_600_000;

function cpuMs() {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** Every folder of the tree, its time stamp set an hour back (older than a listing's racy window). */
function buildTree(root) {
  const folders = [root];
  for (let i = 0; i < FOLDERS; i += 1) {
    const folder = path.join(root, `pkg${i % 40}`, `mod${i}`);
    fs.mkdirSync(folder, { recursive: true });
    for (let j = 0; j < FILES_PER_FOLDER; j += 1) fs.writeFileSync(path.join(folder, `file${j}.ts`), '');
    folders.push(folder);
  }
  folders.push(...Array.from({ length: 40 }, (_, i) => path.join(root, `pkg${i}`)));
  return folders;
}

function age(folders) {
  const past = new Date(Date.now() - HOUR_MS);
  for (const folder of folders) fs.utimesSync(folder, past, past);
}

async function timed(scan) {
  const start = cpuMs();
  const result = await scan();
  return { ms: cpuMs() - start, result };
}

export default async function run({ quick }) {
  const rounds = quick ? 5 : 11;
  const root = tempDir('agent-tracker-bench-env-rescan-');
  try {
    const folders = buildTree(root);
    age(folders);
    const changed = path.join(root, 'pkg7', 'mod7');
    let listings = (await findEnvFiles(root)).listings;
    const full = [];
    const unchanged = [];
    const oneChanged = [];
    for (let round = 0; round < rounds; round += 1) {
      full.push((await timed(() => findEnvFiles(root))).ms);
      const same = await timed(() => findEnvFiles(root, undefined, listings));
      if (same.result.read !== 0) throw new Error(`a rescan of an unchanged tree read ${same.result.read} folders`);
      unchanged.push(same.ms);
      listings = same.result.listings;
      fs.writeFileSync(path.join(changed, '.env'), `K=secret-${round}\n`);
      const one = await timed(() => findEnvFiles(root, undefined, listings));
      if (one.result.read !== 1 || one.result.files.length !== 1) throw new Error(`a rescan after one change read ${one.result.read} folders and found ${one.result.files.length} files`);
      oneChanged.push(one.ms);
      fs.rmSync(path.join(changed, '.env'));
      age([changed]);
      listings = (await findEnvFiles(root, undefined, one.result.listings)).listings;
    }
    const baseline = median(full);
    const rescan = median(unchanged);
    return [
      { name: `.env scan of ${FOLDERS} folders: rescan, nothing changed`, metric: 'median CPU', value: rescan, unit: 'ms', baseline, ratio: rescan / baseline },
      { name: `.env scan of ${FOLDERS} folders: rescan, one folder changed`, metric: 'median CPU', value: median(oneChanged), unit: 'ms', baseline, ratio: median(oneChanged) / baseline },
    ];
  } finally {
    removeDir(root);
  }
}
