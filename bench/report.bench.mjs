/**
 * `report` and `recommend` over a large history: 10,000 sessions (usage records) holding 100,000
 * commits, 30,000 of them graded, on 40 classified projects. Measures the work behind the CLI
 * commands (read + aggregate + rank, and for recommend the classification of the target folder),
 * against a baseline of only reading the usage records they aggregate.
 *
 * Target: <= 300 ms each (DESIGN.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { dist, median, percentile, removeDir, tempDir } from './support.mjs';

const SESSIONS = 10_000;
const COMMITS = 100_000;
const GRADED = 30_000;
const PROJECTS = 40;
const BATCH = 5_000;
const TARGET_MS = 300;
const AGENTS = ['build', 'plan', 'general', 'review'];
const MODELS = ['anthropic/claude-sonnet', 'openai/gpt-5', 'google/gemini-pro', 'local/qwen'];
const LANGUAGES = [
  ['rust', 'axum', 'api', ['tokio', 'serde', 'axum']],
  ['typescript', 'react', 'web', ['react', 'vite']],
  ['python', 'django', 'web', ['django', 'celery']],
  ['go', 'gin', 'api', ['gin', 'gorm']],
];
const GRADES = [-1, 1, 2, 5];

/** A small deterministic generator, so every run measures the same data. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export function buildHistory(store, rules) {
  const next = random(42);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const start = Date.parse('2024-01-01T00:00:00Z');
  const projects = Array.from({ length: PROJECTS }, (_, i) => {
    const [language, framework, scope, dependencies] = LANGUAGES[i % LANGUAGES.length];
    return { path: `/bench/project-${i}`, language, framework, scope, dependencies, manifestType: 'bench', classifiedAt: new Date(start).toISOString(), agentsmdHash: '' };
  });
  const mutations = projects.map((value) => ({ table: 'projects', key: value.path, value }));
  const commitsPerSession = COMMITS / SESSIONS;
  const gradeOps = new Map();
  let graded = 0;
  for (let s = 0; s < SESSIONS; s += 1) {
    const agent = pick(AGENTS);
    const model = pick(MODELS);
    const project = projects[s % PROJECTS].path;
    const sessionId = `ses_${s}`;
    const at = new Date(start + s * 3_600_000).toISOString();
    const toolCalls = 5 + Math.floor(next() * 40);
    // Grades are counted in the session's usage record too, as TrackingService.gradeCommit does.
    const grades = { gradedCommits: 0, gradeSum: 0, csDelta: 0, userGradedCommits: 0, userGradeSum: 0, selfGradedCommits: 0, selfGradeSum: 0 };
    const session = {
      table: 'usage',
      key: [sessionId, agent, model],
      init: { sessionId, agent, model, project, firstAt: at },
      counters: {
        toolCalls,
        toolFailures: Math.floor(next() * toolCalls * 0.2),
        commits: commitsPerSession,
        bugs: next() < 0.1 ? 1 : 0,
        messages: 5,
        tokensInput: 20_000,
        tokensOutput: 3_000,
        cost: Math.round(next() * 100) / 100,
        // Outcome signals, so recommend scores (and gives intervals for) every signal it has.
        turns: 4,
        undoneTurns: next() < 0.2 ? 1 : 0,
        testRuns: 2,
        testPasses: next() < 0.8 ? 2 : 1,
        revertedCommits: next() < 0.1 ? 1 : 0,
        followUpFixCommits: next() < 0.1 ? 1 : 0,
      },
      lastAt: at,
    };
    mutations.push(session);
    for (let c = 0; c < commitsPerSession; c += 1) {
      const hash = (s * commitsPerSession + c).toString(16).padStart(40, '0');
      mutations.push({
        table: 'commits',
        key: [project, hash],
        value: { hash, project, agent, model, sessionId, message: `change ${hash.slice(-6)}`, files: ['src/lib.rs'], insertions: 4, deletions: 1, timestamp: at },
      });
      if (graded < GRADED && next() < (GRADED / COMMITS) * 1.2) {
        graded += 1;
        const ops = gradeOps.get(agent) ?? [];
        const agentGrade = pick(GRADES);
        const userGrade = pick(GRADES);
        grades.gradedCommits += 1;
        grades.gradeSum += agentGrade + userGrade;
        // Half the grades carry a provenance (the user's and the agent's own), half are old records.
        if (graded % 2 === 0) {
          grades.userGradedCommits += 1;
          grades.userGradeSum += userGrade;
          grades.selfGradedCommits += 1;
          grades.selfGradeSum += agentGrade;
        }
        grades.csDelta += agentGrade + userGrade;
        ops.push({
          kind: 'grade',
          delta: agentGrade + userGrade,
          retrospective: { commit: hash, timestamp: at, task: '', agent_grade: agentGrade, user_grade: userGrade, agent_note: '', user_note: '', agent, model, project, sessionId },
        });
        gradeOps.set(agent, ops);
      }
    }
    Object.assign(session.counters, grades);
  }
  for (const [agent, ops] of gradeOps) mutations.push({ table: 'agents', key: agent, ops });
  for (let i = 0; i < mutations.length; i += BATCH) store.applyBatch(mutations.slice(i, i + BATCH), rules, new Date().toISOString());
  return graded;
}

/** Wall-clock and CPU milliseconds per run (CPU time shows the work when the machine is busy). */
async function time(runs, action) {
  const wall = [];
  const cpu = [];
  for (let i = 0; i < runs; i += 1) {
    const cpuStart = process.cpuUsage();
    const started = performance.now();
    await action();
    wall.push(performance.now() - started);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wall, cpu };
}

export default async function run({ quick }) {
  const { Store } = await dist('core/store/store.js');
  const { termIndexer } = await dist('core/search/indexer.js');
  const { resolveConfig } = await dist('core/config.js');
  const { loadHistory } = await dist('core/report/history.js');
  const { buildReport } = await dist('core/report/report.js');
  const { recommendForProject } = await dist('core/report/recommend-project.js');

  const dir = tempDir('report');
  try {
    const config = resolveConfig({ options: { databasePath: path.join(dir, 'bench.lmdb') }, env: {}, home: dir });
    const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
    const graded = buildHistory(store, config.rules);
    const target = path.join(dir, 'target');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'Cargo.toml'), '[package]\nname = "target"\nversion = "0.1.0"\n\n[dependencies]\ntokio = "1"\naxum = "0.7"\n');

    const runs = quick ? 3 : 15;
    // Warm the page cache and the JIT once, as a second command run would find them.
    buildReport(loadHistory(store));
    await recommendForProject(store, target);

    const readOnly = await time(runs, () => {
      let count = 0;
      for (const entry of store.tables.usage.getRange()) count += entry.value.commits;
      return count;
    });
    const report = await time(runs, () => buildReport(loadHistory(store)));
    const recommend = await time(runs, () => recommendForProject(store, target));
    store.close();

    const baseline = median(readOnly.wall);
    const label = `${SESSIONS.toLocaleString('en-US')} sessions, ${COMMITS.toLocaleString('en-US')} commits, ${graded.toLocaleString('en-US')} graded`;
    return [
      { name: 'read the usage records', metric: `median (${label})`, value: baseline, unit: 'ms' },
      { name: 'report', metric: 'median', value: median(report.wall), unit: 'ms', baseline, target: TARGET_MS },
      { name: 'report', metric: 'p95', value: percentile(report.wall, 95), unit: 'ms', target: TARGET_MS },
      { name: 'report', metric: 'median CPU time', value: median(report.cpu), unit: 'ms', baseline: median(readOnly.cpu) },
      { name: 'recommend (per role, 80% intervals, P(best))', metric: 'median', value: median(recommend.wall), unit: 'ms', baseline, target: TARGET_MS },
      { name: 'recommend', metric: 'p95', value: percentile(recommend.wall, 95), unit: 'ms', target: TARGET_MS },
      { name: 'recommend', metric: 'median CPU time', value: median(recommend.cpu), unit: 'ms', baseline: median(readOnly.cpu) },
    ];
  } finally {
    removeDir(dir);
  }
}
