/**
 * The plugin's scans for `.env` files. In a session it rescans its project every 30 s while tools run
 * (src/opencode/guards/project-secrets.ts): a rescan of a project whose folders did not change
 * (one `stat` per folder), and one after a file was added to one folder, against a full scan of the
 * same tree (every folder listed), measured in the same run. The tree: 2,000 folders of 10 files
 * each, about the size of a mid-sized repository without its dependencies.
 *
 * At each session start it reads every other known project's env files too (stored-text.ts): 20
 * projects of 100 folders of 10 files and an env file, with the folders kept from the last session beside the
 * database (env-folders.ts), against the same start without them (every folder of every project listed).
 */
import fs from 'node:fs';
import path from 'node:path';
import { EnvFolders, envFoldersPath } from '../dist/opencode/guards/env-folders.js';
import { findEnvFiles } from '../dist/opencode/guards/project-secrets.js';
import { StoredTextMasker } from '../dist/opencode/guards/stored-text.js';
import { median, removeDir, silentLogger, tempDir } from './support.mjs';

const FOLDERS = 2_000;
const FILES_PER_FOLDER = 10;
const HOUR_MS = 3_600_000;
const OTHER_PROJECTS = 20;
const OTHER_FOLDERS = 100;

function cpuMs() {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** Every folder of the tree, its time stamp set an hour back (older than a listing's racy window). */
function buildTree(root, count = FOLDERS) {
  const folders = [root];
  for (let i = 0; i < count; i += 1) {
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

/** One session start's read of the other projects (into a masker for a project elsewhere). */
async function otherProjectsStart(roots, folders) {
  const masker = new StoredTextMasker(undefined, silentLogger, Date.now, folders);
  await masker.addKnownProjects(() => roots, '/elsewhere');
  if (masker.otherProjects !== roots.length) throw new Error(`read ${masker.otherProjects} of ${roots.length} other projects`);
}

async function otherProjectsRows(root, rounds) {
  const roots = [];
  for (let p = 0; p < OTHER_PROJECTS; p += 1) {
    const project = path.join(root, `project${p}`);
    const folders = buildTree(project, OTHER_FOLDERS);
    fs.writeFileSync(path.join(project, '.env'), `KEY_${p}=other-project-secret-${p}\n`);
    age(folders);
    roots.push(project);
  }
  const file = envFoldersPath(path.join(root, 'tracker.lmdb'));
  await otherProjectsStart(roots, new EnvFolders(file, silentLogger));
  const kept = [];
  const without = [];
  for (let round = 0; round < rounds; round += 1) {
    without.push((await timed(() => otherProjectsStart(roots))).ms);
    kept.push((await timed(() => otherProjectsStart(roots, new EnvFolders(file, silentLogger)))).ms);
  }
  const baseline = median(without);
  const value = median(kept);
  return { name: `.env scan of ${OTHER_PROJECTS} other projects at a session start, folders kept`, metric: 'median CPU', value, unit: 'ms', baseline, ratio: value / baseline };
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
    const project = path.join(root, 'project');
    const folders = buildTree(project);
    age(folders);
    const changed = path.join(project, 'pkg7', 'mod7');
    let listings = (await findEnvFiles(project)).listings;
    const full = [];
    const unchanged = [];
    const oneChanged = [];
    for (let round = 0; round < rounds; round += 1) {
      full.push((await timed(() => findEnvFiles(project))).ms);
      const same = await timed(() => findEnvFiles(project, undefined, listings));
      if (same.result.read !== 0) throw new Error(`a rescan of an unchanged tree read ${same.result.read} folders`);
      unchanged.push(same.ms);
      listings = same.result.listings;
      fs.writeFileSync(path.join(changed, '.env'), `K=secret-${round}\n`);
      const one = await timed(() => findEnvFiles(project, undefined, listings));
      if (one.result.read !== 1 || one.result.files.length !== 1) throw new Error(`a rescan after one change read ${one.result.read} folders and found ${one.result.files.length} files`);
      oneChanged.push(one.ms);
      fs.rmSync(path.join(changed, '.env'));
      age([changed]);
      listings = (await findEnvFiles(project, undefined, one.result.listings)).listings;
    }
    const baseline = median(full);
    const rescan = median(unchanged);
    return [
      await otherProjectsRows(path.join(root, 'others'), rounds),
      { name: `.env scan of ${FOLDERS} folders: rescan, nothing changed`, metric: 'median CPU', value: rescan, unit: 'ms', baseline, ratio: rescan / baseline },
      { name: `.env scan of ${FOLDERS} folders: rescan, one folder changed`, metric: 'median CPU', value: median(oneChanged), unit: 'ms', baseline, ratio: median(oneChanged) / baseline },
    ];
  } finally {
    removeDir(root);
  }
}
