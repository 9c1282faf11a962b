/**
 * Hook-path cost per event: what a host event costs while OpenCode waits, measured one event at
 * a time (p50/p99), through the real TrackingService and through the OpenCode adapter's hooks,
 * against the naive design of one durable write per event (a transactionSync with one put of
 * the same session record, on an lmdb environment opened like the Store opens its own).
 *
 * Flushes at the end of each turn are part of the run (as in a real session) but not of the
 * per-event figures: flush cost is measured by flush.bench.mjs.
 */
import path from 'node:path';
import { open } from 'lmdb';
import { dist, percentile, removeDir, silentLogger, tempDir, toMicros } from './support.mjs';

const TURN_EVENTS = 40;
const SESSIONS = 8;
const TOOLS = ['bash', 'read', 'edit', 'grep', 'glob'];
/** Every Nth event of a turn is a streamed assistant-message update; the rest are tool calls. */
const MESSAGE_EVERY = 4;
const HOOK_P99_TARGET_US = 20;
const CHEAPER_TARGET = 20;
const MAX_DB_SIZE = 512 * 1024 * 1024;

function eventPlan(count) {
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
  const { TrackingService } = await dist('core/tracking/service.js');
  const config = resolveConfig({ options: { databasePath: path.join(dir, `${name}.lmdb`) }, env: {}, home: dir });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize });
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
      if (event.i >= warmup) samples.push(toMicros(took));
      if (event.lastOfTurn) service.endTurn(event.session);
    }
  } finally {
    store.close();
  }
  return samples;
}

/** Per-event cost through the adapter: tool.execute.before + after per tool call, the event hook per message update. */
async function measureAdapter(dir, plan, warmup) {
  const { createHooks } = await dist('opencode/hooks.js');
  const { store, service } = await trackerIn(dir, 'adapter');
  const hooks = createHooks({ service, logger: silentLogger, directory: dir, ownTools: new Set() });
  const samples = [];
  try {
    for (const event of plan) {
      let took;
      if (event.kind === 'tool') {
        const input = { tool: event.tool, sessionID: event.session, callID: event.callId };
        const beforeOutput = { args: { filePath: 'src/index.ts' } };
        const afterOutput = { title: event.tool, output: 'ok', metadata: {} };
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
      if (event.i >= warmup) samples.push(toMicros(took));
      if (event.lastOfTurn) service.endTurn(event.session);
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
      if (event.i >= warmup) samples.push(toMicros(took));
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
    const service = await measureService(dir, plan, warmup);
    const adapter = await measureAdapter(dir, plan, warmup);
    const durable = measureDurable(dir, eventPlan(durableEvents + durableWarmup), durableWarmup);

    const stats = (samples) => ({ p50: percentile(samples, 50), p99: percentile(samples, 99) });
    const s = stats(service);
    const a = stats(adapter);
    const d = stats(durable);
    const rows = [];
    const add = (name, values, target) => {
      rows.push({ name, metric: `p50 (${values.n} events)`, value: values.p50, unit: 'µs' });
      rows.push({ name, metric: 'p99', value: values.p99, unit: 'µs', ...(target ? { target: `<= ${target} µs`, pass: values.p99 <= target } : {}) });
    };
    add('hook path: TrackingService', { ...s, n: service.length }, HOOK_P99_TARGET_US);
    add('hook path: OpenCode adapter', { ...a, n: adapter.length }, HOOK_P99_TARGET_US);
    add('durable write per event', { ...d, n: durable.length });
    for (const [label, hook] of [['TrackingService', s], ['OpenCode adapter', a]]) {
      for (const p of ['p50', 'p99']) {
        const cheaper = d[p] / hook[p];
        rows.push({
          name: `durable write / hook path (${label})`,
          metric: `${p} cost ratio`,
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
