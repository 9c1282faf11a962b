/**
 * OpenTelemetry export from real `opencode` sessions (the fake model scripts the work), into a
 * loopback OTLP/HTTP receiver that decodes what arrives: protobuf when set by the plugin option,
 * JSON when set by the standard OTEL_* variables. The metric totals equal what `report --json` says
 * for the same sessions; a graded commit and the session's end arrive as events; a collector that
 * is down or a malformed setting costs one log line and loses only telemetry.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { bash, call, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { latestPoints, startOtlpReceiver, total } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';
import { cliJson, makeRepo, makeSandbox, removeSandbox, runOpencode, writeGlobalConfig } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

jest.setTimeout(300_000);

interface ReportRow {
  sessions: number;
  toolCalls: number;
  toolFailures: number;
  commits: number;
  tokensInput: number;
  tokensOutput: number;
  tokensReasoning: number;
  tokensCacheRead: number;
  cost: number | null;
  costUnknownSessions: number;
}

const FIELDS = ['sessions', 'toolCalls', 'toolFailures', 'commits', 'tokensInput', 'tokensOutput', 'cost'] as const;

/**
 * The report's totals. Telemetry sends cost as OpenCode recorded it: the fake model is stored at 0 and
 * is not in the price catalog, so the report calls its cost unknown (null) where telemetry adds nothing.
 */
function totals(sandbox: Sandbox): Record<(typeof FIELDS)[number], number> {
  const report = cliJson<{ totals: ReportRow }>(sandbox, ['report']);
  if (report.totals.cost === null) expect(report.totals.costUnknownSessions).toBe(report.totals.sessions);
  return Object.fromEntries(FIELDS.map((field) => [field, report.totals[field] ?? 0])) as Record<(typeof FIELDS)[number], number>;
}

function received(receiver: OtlpReceiver): Record<(typeof FIELDS)[number], number> {
  const points = receiver.metrics();
  return {
    sessions: total(points, 'agent_tracker.sessions'),
    toolCalls: total(points, 'agent_tracker.tool.calls'),
    toolFailures: total(points, 'agent_tracker.tool.failures'),
    commits: total(points, 'agent_tracker.commits'),
    tokensInput: total(points, 'gen_ai.client.token.usage', { 'gen_ai.token.type': 'input' }),
    tokensOutput: total(points, 'gen_ai.client.token.usage', { 'gen_ai.token.type': 'output' }),
    cost: total(points, 'agent_tracker.cost'),
  };
}

describe('telemetry from real OpenCode sessions', () => {
  let sandbox: Sandbox;
  let model: FakeModel;
  let repo: string;
  const receivers: OtlpReceiver[] = [];

  beforeAll(async () => {
    sandbox = makeSandbox();
    repo = makeRepo(sandbox, 'shop');
    fs.writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ name: 'shop', dependencies: { express: '^4.19.0' } }));
    model = await startFakeModel(
      scriptByPrompt({
        'OTEL-TURN': [
          bash('echo one > one.txt && git add one.txt && git commit -qm "add one"'),
          call('read', { filePath: path.join(repo, 'missing.txt') }),
          call('grade-commit', { commit: 'HEAD', agentGrade: 2, userGrade: 2, notes: 'fine' }),
          say('Done.'),
        ],
        'QUIET-TURN': [bash('echo hello'), say('Done.')],
      }),
    );
  });

  afterAll(async () => {
    await model?.close();
    for (const receiver of receivers) await receiver.close();
    if (sandbox) removeSandbox(sandbox);
  });

  async function receiver(): Promise<OtlpReceiver> {
    const started = await startOtlpReceiver();
    receivers.push(started);
    return started;
  }

  it('sends protobuf metrics equal to the report, and the events, when the plugin option sets it', async () => {
    const collector = await receiver();
    writeGlobalConfig(sandbox, { modelUrl: model.url, pluginOptions: { telemetry: { endpoint: collector.url, exportIntervalMs: 1000 } } });
    const run = await runOpencode(sandbox, repo, 'OTEL-TURN: commit, fail a read, grade');
    expect(run.code).toBe(0);
    expect(collector.received.length).toBeGreaterThan(0);
    expect(collector.received.every((r) => r.contentType === 'application/x-protobuf')).toBe(true);

    const report = totals(sandbox);
    expect(report.commits).toBe(1);
    expect(report.toolFailures).toBe(1);
    expect(received(collector)).toEqual(report);

    const [resource] = collector.resources();
    expect(resource).toMatchObject({ 'service.name': 'agent-tracker' });
    expect(typeof resource?.['host.name']).toBe('string');
    const points = collector.metrics();
    const tools = points.find((p) => p.name === 'agent_tracker.tool.calls');
    expect(tools?.attributes).toMatchObject({ 'gen_ai.agent.name': 'build', 'gen_ai.request.model': 'fake-model', 'gen_ai.provider.name': 'fake', 'agent_tracker.project.language': 'javascript' });
    // The project is named only when includeProjectNames says so; a stable id stands in for it.
    expect(tools?.attributes['agent_tracker.project.id']).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(points)).not.toContain(repo);

    // grade-commit records the agent's own grade only: the "user grade" it relays is not the user's.
    const grades = latestPoints(points).filter((p) => p.name === 'agent_tracker.grade');
    expect(grades.reduce((sum, p) => sum + p.count, 0)).toBe(1);
    expect(grades[0]?.attributes).toMatchObject({ 'agent_tracker.grade.provenance': 'self' });
    const events = collector.logs();
    expect(events.filter((e) => e.name === 'agent_tracker.commit.graded')).toHaveLength(1);
    const end = events.find((e) => e.name === 'agent_tracker.session.end');
    expect(end?.attributes).toMatchObject({ 'agent_tracker.tool.calls': report.toolCalls, 'agent_tracker.commits': 1 });
  });

  it('sends JSON when the OTEL_* variables and AGENT_TRACKER_TELEMETRY=1 set it', async () => {
    const collector = await receiver();
    writeGlobalConfig(sandbox, { modelUrl: model.url });
    const before = totals(sandbox);
    const env = { AGENT_TRACKER_TELEMETRY: '1', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_HEADERS: 'x-team=platform%20tools' };
    const run = await runOpencode(sandbox, repo, 'QUIET-TURN: say hello', { env });
    expect(run.code).toBe(0);
    expect(collector.received.length).toBeGreaterThan(0);
    expect(collector.received.every((r) => r.contentType.startsWith('application/json'))).toBe(true);
    const after = totals(sandbox);
    const delta = Object.fromEntries(FIELDS.map((field) => [field, after[field] - before[field]]));
    expect(received(collector)).toEqual(delta);
  });

  it('sends nothing without AGENT_TRACKER_TELEMETRY=1, even with an OTEL endpoint set', async () => {
    const collector = await receiver();
    writeGlobalConfig(sandbox, { modelUrl: model.url });
    const run = await runOpencode(sandbox, repo, 'QUIET-TURN: say hello', { env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } });
    expect(run.code).toBe(0);
    // OpenCode itself may export its own traces and logs there; nothing of the tracker's arrives.
    expect(collector.received.filter((r) => r.path.endsWith('/v1/metrics'))).toEqual([]);
    expect(collector.logs().filter((e) => e.name.startsWith('agent_tracker'))).toEqual([]);
  });

  it('keeps tracking with one warning when the collector refuses, and with one error for a malformed setting', async () => {
    const collector = await receiver();
    collector.failNext = 1000;
    writeGlobalConfig(sandbox, { modelUrl: model.url, pluginOptions: { telemetry: { endpoint: collector.url, exportIntervalMs: 1000 } } });
    const before = totals(sandbox);
    const down = await runOpencode(sandbox, repo, 'QUIET-TURN: say hello');
    expect(down.code).toBe(0);
    expect(totals(sandbox).toolCalls).toBe(before.toolCalls + 1);
    // At most one warning per session (whether it reaches the log before OpenCode exits depends on timing).
    expect((down.stderr.match(/telemetry could not be sent/g) ?? []).length).toBeLessThanOrEqual(1);

    writeGlobalConfig(sandbox, { modelUrl: model.url, pluginOptions: { telemetry: { endpoint: 'collector:4318', protocol: 'grpc' } } });
    const malformed = await runOpencode(sandbox, repo, 'QUIET-TURN: say hello');
    expect(malformed.code).toBe(0);
    expect(malformed.stderr.match(/telemetry is off: telemetry\.endpoint must/g)).toHaveLength(1);
    expect(totals(sandbox).toolCalls).toBe(before.toolCalls + 2);
  });
});
