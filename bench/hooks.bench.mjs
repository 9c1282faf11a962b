/**
 * Hook-path cost per event: what a host event costs while OpenCode waits, measured one event at
 * a time (p50/p99), through the real TrackingService and through the OpenCode adapter's hooks,
 * against the naive design of one durable write per event (a transactionSync with one put of
 * the same session record, on an lmdb environment opened like the Store opens its own).
 *
 * Flushes at the end of each turn are part of the run (as in a real session) but not of the
 * per-event figures: flush cost is measured by flush.bench.mjs. After each flush the event loop
 * runs once before the next event (in a session the next event arrives in a later task).
 *
 * The first event after a flush runs on caches the flush's work and fsync have just emptied: it
 * costs several times the others (see bench/hooks-tail.mjs and docs/PERFORMANCE.md). It is one
 * event in 40 here, so it alone decides the p99; each row therefore also shows the p99 without
 * those events and their own p50/p99.
 *
 * Three paths: TrackingService's recording methods; the adapter's hooks alone (no guards, no
 * masking: comparable with earlier figures); and the adapter as the plugin wires it (the user-only
 * and .env guards, the grep rewriter, the tracker-file check, output masking, the status sheet's
 * wrapper), with realistic arguments and 2 KB outputs, in a project without env files and in one
 * with a `.env` of three secrets (every output masked).
 */
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate } from 'node:timers';
import { open } from 'lmdb';
import { dist, percentile, removeDir, silentLogger, tempDir, toMicros } from './support.mjs';

export const TURN_EVENTS = 40;
const SESSIONS = 8;
const TOOLS = ['bash', 'read', 'edit', 'grep', 'glob'];
/** Every Nth event of a turn is a streamed assistant-message update; the rest are tool calls. */
const MESSAGE_EVERY = 4;
const HOOK_P99_TARGET_US = 20;
const CHEAPER_TARGET = 20;
const MAX_DB_SIZE = 512 * 1024 * 1024;
/** A tool's output as the model gets it: about 2 KB of ordinary text. */
export const TOOL_OUTPUT = 'src/index.ts:12: export function handleRequest(request: Request): Response {\n'.repeat(28);
export const ENV_FILE = 'API_KEY=sk-live-4f9a0c2b7e1d8a6f3b5c9e0d\nDB_PASSWORD=correct-horse-battery-staple\nGITHUB_TOKEN=ghp_0123456789abcdefABCDEF0123456789abcd\n';
/** Arguments a tool call really carries, by tool (bash runs tests: the recognizer runs). */
export const TOOL_ARGS = {
  bash: { command: 'npm test -- --runInBand src/index.test.ts', description: 'Run the tests' },
  read: { filePath: 'src/index.ts' },
  edit: { filePath: 'src/index.ts', oldString: 'return null;', newString: 'return undefined;' },
  grep: { pattern: 'handleRequest', path: 'src' },
  glob: { pattern: 'src/**/*.ts' },
};

/** The event loop runs once, as between two host events. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

export function eventPlan(count) {
  const plan = [];
  for (let i = 0; i < count; i += 1) {
    const turn = Math.floor(i / TURN_EVENTS);
    const session = `ses_bench_${turn % SESSIONS}`;
    const kind = i % MESSAGE_EVERY === MESSAGE_EVERY - 1 ? 'message' : 'tool';
    plan.push({
      i,
      session,
      turn,
      lastOfTurn: i % TURN_EVENTS === TURN_EVENTS - 1,
      kind,
      tool: TOOLS[i % TOOLS.length],
      callId: `call_${i}`,
      messageId: `msg_${turn}`,
      tokens: { input: 1000 + i, output: 10 * (i % TURN_EVENTS), reasoning: 0, cacheRead: 500, cacheWrite: 0 },
      cost: 0.0001 * (i % TURN_EVENTS),
    });
  }
  return plan;
}

async function trackerIn(dir, name) {
  const { resolveConfig } = await dist('core/config.js');
  const { Store } = await dist('core/store/store.js');
  const { termIndexer } = await dist('core/search/indexer.js');
  const { TrackingService } = await dist('core/tracking/service.js');
  const config = resolveConfig({ options: { databasePath: path.join(dir, `${name}.lmdb`) }, env: {}, home: dir });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  const service = new TrackingService({ store, config, logger: silentLogger, project: dir });
  for (let s = 0; s < SESSIONS; s += 1) service.noteModelRequest(`ses_bench_${s}`, 'build', 'bench/model');
  return { store, service };
}

/** Per-event cost through TrackingService's recording methods, in microseconds. */
async function measureService(dir, plan, warmup) {
  const { store, service } = await trackerIn(dir, 'service');
  const samples = [];
  try {
    for (const event of plan) {
      const started = process.hrtime.bigint();
      if (event.kind === 'tool') service.recordToolCall(event.session, event.callId, event.tool, true);
      else service.recordAssistantMessage(event.session, event.messageId, { agent: 'build', model: 'bench/model' }, event.tokens, event.cost);
      const took = process.hrtime.bigint() - started;
      if (event.i >= warmup) samples.push(sample(event, took));
      if (event.lastOfTurn) {
        service.endTurn(event.session);
        await settle();
      }
    }
  } finally {
    store.close();
  }
  return samples;
}

function sample(event, took) {
  return { micros: toMicros(took), afterFlush: event.i % TURN_EVENTS === 0 };
}

/**
 * The hook context as src/opencode/plugin.ts builds it (guards, rewriter, tracker-file check, masking),
 * and `wrap`, the status sheet's wrapper the plugin puts around the hooks. Works on a build from
 * before trackerFileEditCheck too (paired runs), wired as the plugin then wired it.
 */
export async function pluginWiring(project, databasePath, service) {
  const { confineGrepToNonEnvFiles, createEnvFileGuard } = await dist('opencode/guards/env-guard.js');
  const { maskToolOutput } = await dist('opencode/guards/output-mask.js');
  const { ProjectSecrets } = await dist('opencode/guards/project-secrets.js');
  const { userOnlyGuard } = await dist('core/integrity/user-only.js');
  const trackerFiles = await dist('core/integrity/tracker-files.js');
  const { createStatusSheets } = await dist('opencode/toast.js');
  const { opencodeConfigDir } = await dist('core/config.js');
  const secrets = new ProjectSecrets(project, silentLogger);
  await secrets.scan();
  const configEnv = { XDG_CONFIG_HOME: path.join(project, 'config') };
  // The sheet's client is used for toasts only (session start, commits): never on this path.
  const client = { tui: { showToast: async () => ({}) } };
  const sheets = createStatusSheets({ client, service, logger: silentLogger, project });
  return {
    context: {
      guards: [userOnlyGuard(databasePath), createEnvFileGuard()],
      argumentRewriters: [confineGrepToNonEnvFiles],
      editsTrackerFiles: trackerFiles.trackerFileEditCheck
        ? trackerFiles.trackerFileEditCheck(opencodeConfigDir(configEnv))
        : (tool, args) => trackerFiles.editsTrackerFiles(tool, args, opencodeConfigDir(configEnv)),
      maskOutput: (output) => maskToolOutput(output, () => secrets.masker()),
    },
    wrap: (hooks) => sheets.wrapHooks(hooks),
    // For bench/hooks-parts.mjs, which times the masking's parts.
    secrets,
    maskToolOutput,
  };
}

/**
 * Per-event cost through the adapter: tool.execute.before + after per tool call, the event hook per
 * message update. `wiring` adds what the plugin wires around the hooks (undefined: the hooks alone).
 */
async function measureAdapter(dir, plan, warmup, name, wiring) {
  const { createHooks } = await dist('opencode/hooks.js');
  const project = path.join(dir, name);
  fs.mkdirSync(project, { recursive: true });
  if (wiring === 'env') fs.writeFileSync(path.join(project, '.env'), ENV_FILE);
  const { store, service } = await trackerIn(dir, name);
  const { context = {}, wrap = (hooks) => hooks } = wiring ? await pluginWiring(project, path.join(dir, `${name}.lmdb`), service) : {};
  const hooks = wrap(createHooks({ service, logger: silentLogger, directory: project, ownTools: new Set(), ...context }));
  const samples = [];
  try {
    for (const event of plan) {
      let took;
      if (event.kind === 'tool') {
        const input = { tool: event.tool, sessionID: event.session, callID: event.callId };
        const beforeOutput = { args: wiring ? { ...TOOL_ARGS[event.tool] } : { filePath: 'src/index.ts' } };
        const afterOutput = wiring
          ? { title: event.tool, output: TOOL_OUTPUT, metadata: event.tool === 'bash' ? { output: TOOL_OUTPUT, exit: 0 } : {} }
          : { title: event.tool, output: 'ok', metadata: {} };
        const started = process.hrtime.bigint();
        await hooks['tool.execute.before'](input, beforeOutput);
        await hooks['tool.execute.after']({ ...input, args: beforeOutput.args }, afterOutput);
        took = process.hrtime.bigint() - started;
      } else {
        const info = {
          role: 'assistant',
          id: event.messageId,
          sessionID: event.session,
          agent: 'build',
          providerID: 'bench',
          modelID: 'model',
          tokens: { input: event.tokens.input, output: event.tokens.output, reasoning: 0, cache: { read: event.tokens.cacheRead, write: 0 } },
          cost: event.cost,
        };
        const started = process.hrtime.bigint();
        await hooks.event({ event: { type: 'message.updated', properties: { info } } });
        took = process.hrtime.bigint() - started;
      }
      if (event.i >= warmup) samples.push(sample(event, took));
      if (event.lastOfTurn) {
        service.endTurn(event.session);
        await settle();
      }
    }
  } finally {
    store.close();
  }
  return samples;
}

/** The naive design: every event updates the session record and commits it durably at once. */
function measureDurable(dir, plan, warmup) {
  const root = open({ path: path.join(dir, 'durable.lmdb'), mapSize: MAX_DB_SIZE, maxDbs: 16, compression: true });
  const sessions = root.openDB({ name: 'sessions', compression: true });
  const records = new Map();
  const samples = [];
  try {
    for (const event of plan) {
      const key = [event.session, 'build', 'bench/model'];
      let record = records.get(event.session);
      if (!record) {
        record = { sessionId: event.session, agent: 'build', model: 'bench/model', project: dir, firstAt: new Date().toISOString(), toolCalls: 0, messages: 0, tokensInput: 0, tokensOutput: 0, cost: 0 };
        records.set(event.session, record);
      }
      const started = process.hrtime.bigint();
      if (event.kind === 'tool') record.toolCalls += 1;
      else {
        record.messages += 1;
        record.tokensInput = event.tokens.input;
        record.tokensOutput = event.tokens.output;
        record.cost = event.cost;
      }
      record.lastAt = new Date().toISOString();
      root.transactionSync(() => sessions.putSync(key, record));
      const took = process.hrtime.bigint() - started;
      if (event.i >= warmup) samples.push(sample(event, took));
    }
  } finally {
    void root.close();
  }
  return samples;
}

export default async function run({ quick }) {
  const events = quick ? 4_000 : 60_000;
  const durableEvents = quick ? 300 : 3_000;
  const warmup = quick ? 1_000 : 5_000;
  const durableWarmup = quick ? 50 : 200;
  const dir = tempDir('hooks');
  try {
    const plan = eventPlan(events + warmup);
    const paths = [
      ['TrackingService', await measureService(dir, plan, warmup)],
      ['OpenCode adapter, hooks alone', await measureAdapter(dir, plan, warmup, 'adapter')],
      ['OpenCode adapter as wired, no .env', await measureAdapter(dir, plan, warmup, 'wired', 'plain')],
      ['OpenCode adapter as wired, .env masked', await measureAdapter(dir, plan, warmup, 'wired-env', 'env')],
    ];
    const durable = measureDurable(dir, eventPlan(durableEvents + durableWarmup), durableWarmup).map((x) => x.micros);
    const d = { p50: percentile(durable, 50), p99: percentile(durable, 99) };

    const rows = [];
    const target = { target: `<= ${HOOK_P99_TARGET_US} µs` };
    for (const [label, samples] of paths) {
      const all = samples.map((x) => x.micros);
      const steady = samples.filter((x) => !x.afterFlush).map((x) => x.micros);
      const first = samples.filter((x) => x.afterFlush).map((x) => x.micros);
      const name = `hook path: ${label}`;
      const p99 = percentile(all, 99);
      const steadyP99 = percentile(steady, 99);
      rows.push({ name, metric: `p50 (${all.length} events)`, value: percentile(all, 50), unit: 'µs' });
      rows.push({ name, metric: 'p99, every event', value: p99, unit: 'µs', ...target, pass: p99 <= HOOK_P99_TARGET_US });
      rows.push({ name, metric: `p99 without the first event after each flush (${steady.length})`, value: steadyP99, unit: 'µs', ...target, pass: steadyP99 <= HOOK_P99_TARGET_US });
      rows.push({ name, metric: `first event after a flush: p50 (${first.length} events)`, value: percentile(first, 50), unit: 'µs' });
      rows.push({ name, metric: 'first event after a flush: p99', value: percentile(first, 99), unit: 'µs' });
    }
    rows.push({ name: 'durable write per event', metric: `p50 (${durable.length} events)`, value: d.p50, unit: 'µs' });
    rows.push({ name: 'durable write per event', metric: 'p99', value: d.p99, unit: 'µs' });
    for (const [label, samples] of paths) {
      const all = samples.map((x) => x.micros);
      for (const p of [50, 99]) {
        const cheaper = d[`p${p}`] / percentile(all, p);
        rows.push({
          name: `durable write / hook path (${label})`,
          metric: `p${p} cost ratio`,
          value: cheaper,
          unit: 'x cheaper',
          target: `>= ${CHEAPER_TARGET}x`,
          pass: cheaper >= CHEAPER_TARGET,
        });
      }
    }
    return rows;
  } finally {
    removeDir(dir);
  }
}
