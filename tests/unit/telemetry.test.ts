/**
 * Telemetry, below the host: the settings (plugin option, OTEL_* variables, malformed values), the
 * translation of flushed mutations into measurements, and the exporter against a loopback OTLP
 * receiver, including one that refuses everything (one warning, nothing thrown).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Mutation, SessionKey } from '../../src/core/store/mutations.js';
import { projectId, translateFlush } from '../../src/adapters/telemetry/measurements.js';
import type { TranslateOptions } from '../../src/adapters/telemetry/measurements.js';
import { parseHeaderList, resolveTelemetry, TelemetrySettingsError } from '../../src/adapters/telemetry/settings.js';
import { TelemetryExporter } from '../../src/adapters/telemetry/exporter.js';
import { latestPoints, startOtlpReceiver, total } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';
import { recordingLogger } from '../helpers/temp-store.js';
import type { ProjectProfile } from '../../src/core/types.js';

describe('telemetry settings', () => {
  it('is off unless the option is set or AGENT_TRACKER_TELEMETRY=1 joins an OTEL endpoint', () => {
    expect(resolveTelemetry(undefined, {})).toBeUndefined();
    expect(resolveTelemetry(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBeUndefined();
    expect(resolveTelemetry(undefined, { AGENT_TRACKER_TELEMETRY: '1', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' })).toEqual({
      metricsEndpoint: 'http://127.0.0.1:4318/v1/metrics',
      logsEndpoint: 'http://127.0.0.1:4318/v1/logs',
      protocol: 'http/protobuf',
      headers: {},
      exportIntervalMs: 60_000,
      includeProjectNames: false,
    });
  });

  it('uses signal-specific endpoints as they are, and reads protocol, headers and interval', () => {
    const settings = resolveTelemetry(undefined, {
      AGENT_TRACKER_TELEMETRY: '1',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://metrics.example.test/otlp/metrics',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc, x-team=core',
      OTEL_METRIC_EXPORT_INTERVAL: '5000',
    });
    expect(settings).toMatchObject({
      metricsEndpoint: 'https://metrics.example.test/otlp/metrics',
      logsEndpoint: 'http://127.0.0.1:4318/v1/logs',
      protocol: 'http/json',
      headers: { authorization: 'Bearer abc', 'x-team': 'core' },
      exportIntervalMs: 5000,
    });
  });

  it('lets the plugin option win over the environment', () => {
    const settings = resolveTelemetry(
      { endpoint: 'http://collector.test:4318', protocol: 'http/json', headers: { 'x-key': 'v' }, exportIntervalMs: 2000, includeProjectNames: true },
      { AGENT_TRACKER_TELEMETRY: '1', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' },
    );
    expect(settings).toEqual({
      metricsEndpoint: 'http://collector.test:4318/v1/metrics',
      logsEndpoint: 'http://collector.test:4318/v1/logs',
      protocol: 'http/json',
      headers: { 'x-key': 'v' },
      exportIntervalMs: 2000,
      includeProjectNames: true,
    });
  });

  it.each([
    [{ endpoint: 'collector:4318' }, /telemetry\.endpoint must use http or https/],
    [{ endpoint: 'not a url' }, /telemetry\.endpoint must be an http\(s\) URL/],
    [{ endpoint: '' }, /telemetry\.endpoint must be an http\(s\) URL/],
    [{ endpoint: 'http://127.0.0.1:4318', protocol: 'grpc' }, /"grpc" is not supported/],
    [{ endpoint: 'http://127.0.0.1:4318', protocol: 'thrift' }, /telemetry\.protocol must be one of/],
    [{ endpoint: 'http://127.0.0.1:4318', headers: 'novalue' }, /key=value pairs/],
    [{ endpoint: 'http://127.0.0.1:4318', headers: { a: 1 } }, /telemetry\.headers\.a must be a string/],
    [{ endpoint: 'http://127.0.0.1:4318', exportIntervalMs: 999 }, /exportIntervalMs must be a whole number/],
    [{ endpoint: 'http://127.0.0.1:4318', exportIntervalMs: 3_600_001 }, /exportIntervalMs must be a whole number/],
    [{ endpoint: 'http://127.0.0.1:4318', includeProjectNames: 'yes' }, /includeProjectNames must be true or false/],
    [{ endpoint: 'http://127.0.0.1:4318', color: 'blue' }, /unknown key telemetry\.color/],
    ['http://127.0.0.1:4318', /must be an object/],
  ])('refuses the option %j with one clear line', (option, message) => {
    expect(() => resolveTelemetry(option, {})).toThrow(TelemetrySettingsError);
    expect(() => resolveTelemetry(option, {})).toThrow(message);
  });

  it('accepts the interval bounds themselves', () => {
    expect(resolveTelemetry({ endpoint: 'http://h:1', exportIntervalMs: 1000 }, {})?.exportIntervalMs).toBe(1000);
    expect(resolveTelemetry({ endpoint: 'http://h:1', exportIntervalMs: 3_600_000 }, {})?.exportIntervalMs).toBe(3_600_000);
  });

  it.each([
    [{ AGENT_TRACKER_TELEMETRY: '1' }, /needs OTEL_EXPORTER_OTLP_ENDPOINT/],
    [{ AGENT_TRACKER_TELEMETRY: '1', OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://h:1/m' }, /or both/],
    [{ AGENT_TRACKER_TELEMETRY: '1', OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://h' }, /OTEL_EXPORTER_OTLP_ENDPOINT must use http/],
    [{ AGENT_TRACKER_TELEMETRY: '1', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h:1', OTEL_EXPORTER_OTLP_HEADERS: '=x' }, /OTEL_EXPORTER_OTLP_HEADERS must be key=value/],
    [{ AGENT_TRACKER_TELEMETRY: '1', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h:1', OTEL_EXPORTER_OTLP_HEADERS: 'a=%zz' }, /not URL-encoded/],
  ])('refuses the environment %j with one clear line', (env, message) => {
    expect(() => resolveTelemetry(undefined, env)).toThrow(message);
  });

  it('parses the OTEL header list, skipping empty pairs and decoding values', () => {
    expect(parseHeaderList('a=1,,b = x%3Dy ', 'H')).toEqual({ a: '1', b: 'x=y' });
    expect(parseHeaderList('', 'H')).toEqual({});
  });
});

const PROFILE: ProjectProfile = { path: '/p/shop', language: 'typescript', framework: 'react', scope: 'web', dependencies: [], manifestType: 'package.json', classifiedAt: '', agentsmdHash: '' };

function options(overrides: Partial<TranslateOptions> = {}): TranslateOptions {
  return {
    profileOf: (p) => (p === PROFILE.path ? PROFILE : undefined),
    modelOfCommit: (_p, commit) => (commit === 'abc' ? 'anthropic/claude' : undefined),
    includeProjectNames: false,
    created: [],
    ...overrides,
  };
}

const S1: SessionKey = ['s1', 'build', 'anthropic/claude'];

const sessionMutation = (sessionId: string, counters: Record<string, number>): Mutation => ({
  table: 'usage',
  key: [sessionId, 'build', 'anthropic/claude'],
  init: { sessionId, agent: 'build', model: 'anthropic/claude', project: PROFILE.path, firstAt: '2026-01-01T00:00:00.000Z' },
  counters,
  lastAt: '2026-01-01T00:00:00.000Z',
});

describe('translating a flush', () => {
  it('counts each usage counter under its instrument, with the GenAI attributes', () => {
    const { measurements } = translateFlush([sessionMutation('s1', { toolCalls: 3, toolFailures: 1, commits: 2, cost: 0.5, tokensInput: 100, tokensOutput: 20, tokensCacheRead: 7 })], options({ created: [S1] }));
    const byName = Object.fromEntries(measurements.filter((m) => !m.attributes['gen_ai.token.type']).map((m) => [m.instrument, m.value]));
    expect(byName).toEqual({ 'agent_tracker.sessions': 1, 'agent_tracker.tool.calls': 3, 'agent_tracker.tool.failures': 1, 'agent_tracker.commits': 2, 'agent_tracker.cost': 0.5 });
    expect(measurements[0]?.attributes).toEqual({
      'gen_ai.agent.name': 'build',
      'gen_ai.request.model': 'claude',
      'gen_ai.provider.name': 'anthropic',
      'agent_tracker.project.language': 'typescript',
      'agent_tracker.project.framework': 'react',
      'agent_tracker.project.id': projectId(PROFILE.path),
    });
    const tokens = measurements.filter((m) => m.attributes['gen_ai.token.type']).map((m) => [m.instrument, m.attributes['gen_ai.token.type'], m.value]);
    expect(tokens).toEqual([
      ['agent_tracker.token.usage', 'input', 100],
      ['gen_ai.client.token.usage', 'input', 100],
      ['agent_tracker.token.usage', 'output', 20],
      ['gen_ai.client.token.usage', 'output', 20],
      ['agent_tracker.token.usage', 'cache_read', 7],
    ]);
  });

  it('counts a session when the batch created its record, once however many of its mutations it holds, and names the project only when asked', () => {
    const first = translateFlush([sessionMutation('s1', { toolCalls: 1 }), sessionMutation('s1', { toolCalls: 2 })], options({ created: [S1] }));
    const second = translateFlush([sessionMutation('s1', { toolCalls: 1 })], options({ includeProjectNames: true }));
    expect(first.measurements.filter((m) => m.instrument === 'agent_tracker.sessions')).toHaveLength(1);
    expect(second.measurements.filter((m) => m.instrument === 'agent_tracker.sessions')).toHaveLength(0);
    expect(second.measurements[0]?.attributes['agent_tracker.project.name']).toBe('shop');
    expect(second.measurements[0]?.attributes['agent_tracker.project.id']).toBeUndefined();
  });

  it('turns each grade into a histogram value and an event, with its provenance and the commit\'s model', () => {
    const grade = (source: 'agent' | 'user', value: -1 | 5, provenance?: string): Mutation => ({
      table: 'gradeEvents',
      key: ['build', '2026-01-01T00:00:00.000Z', 'x'],
      value: { agent: 'build', commit: 'abc', project: PROFILE.path, source, grade: value, timestamp: '2026-01-01T00:00:00.000Z', ...(provenance ? { provenance } : {}) } as never,
    });
    const { measurements, events } = translateFlush([grade('agent', 5), grade('user', -1, 'user'), grade('user', 5)], options());
    expect(measurements.map((m) => [m.value, m.attributes['agent_tracker.grade.provenance'], m.attributes['gen_ai.request.model']])).toEqual([
      [5, 'self', 'claude'],
      [-1, 'user', 'claude'],
      [5, 'agent-reported', 'claude'],
    ]);
    expect(events.map((e) => [e.name, e.attributes['agent_tracker.grade'], e.attributes['agent_tracker.commit']])).toEqual([
      ['agent_tracker.commit.graded', 5, 'abc'],
      ['agent_tracker.commit.graded', -1, 'abc'],
      ['agent_tracker.commit.graded', 5, 'abc'],
    ]);
  });

  it('says unknown for a model without a provider and a project without a profile', () => {
    const mutation = { ...sessionMutation('s2', { toolCalls: 1 }), key: ['s2', 'plan', 'local-model'], init: { sessionId: 's2', agent: 'plan', model: 'local-model', project: '/elsewhere', firstAt: '' } } as Mutation;
    const [first] = translateFlush([mutation], options()).measurements;
    expect(first?.attributes).toMatchObject({ 'gen_ai.request.model': 'local-model', 'gen_ai.provider.name': 'unknown', 'agent_tracker.project.language': 'unknown' });
  });
});

describe('the exporter', () => {
  let receiver: OtlpReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  function exporter(url: string, protocol: 'http/protobuf' | 'http/json', logged: { level: string; message: string }[], exportIntervalMs = 60_000): TelemetryExporter {
    return new TelemetryExporter({
      settings: { metricsEndpoint: `${url}/v1/metrics`, logsEndpoint: `${url}/v1/logs`, protocol, headers: { 'x-team': 'core' }, exportIntervalMs, includeProjectNames: false },
      logger: recordingLogger(logged),
      version: '9.9.9',
      lookups: { profileOf: () => PROFILE, modelOfCommit: () => undefined },
    });
  }

  it.each(['http/protobuf', 'http/json'] as const)('sends cumulative totals and the session end over %s', async (protocol) => {
    receiver = await startOtlpReceiver({ lifetimeMs: 60_000 });
    const logged: { level: string; message: string }[] = [];
    const sink = exporter(receiver.url, protocol, logged);
    sink.recordFlush([sessionMutation('s1', { toolCalls: 2, tokensInput: 50 })], [S1]);
    sink.recordFlush([sessionMutation('s1', { toolCalls: 3, tokensInput: 25 })], []);
    await sink.shutdown();
    const points = receiver.metrics();
    expect(total(points, 'agent_tracker.tool.calls')).toBe(5);
    expect(total(points, 'agent_tracker.sessions')).toBe(1);
    const tokens = latestPoints(points).find((p) => p.name === 'gen_ai.client.token.usage' && p.attributes['gen_ai.token.type'] === 'input');
    expect([tokens?.value, tokens?.count]).toEqual([75, 2]);
    expect(receiver.resources()[0]).toMatchObject({ 'service.name': 'agent-tracker', 'service.version': '9.9.9' });
    const end = receiver.logs().find((e) => e.name === 'agent_tracker.session.end');
    expect(end?.attributes).toMatchObject({ 'agent_tracker.session.id': 's1', 'agent_tracker.tool.calls': 5, 'agent_tracker.tokens': 75 });
    expect(logged).toEqual([]);
  });

  it('warns once and throws nothing when the collector refuses every export', async () => {
    receiver = await startOtlpReceiver({ lifetimeMs: 60_000 });
    receiver.failNext = 1_000;
    const logged: { level: string; message: string }[] = [];
    // A short interval makes a short export timeout: the refused exports fail at once instead of retrying.
    const sink = exporter(receiver.url, 'http/json', logged, 1_000);
    for (let i = 0; i < 5; i += 1) sink.recordFlush([sessionMutation(`s${i}`, { toolCalls: 1 })], [[`s${i}`, 'build', 'anthropic/claude']]);
    await sink.shutdown();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(logged.filter((l) => l.message.includes('telemetry could not be sent'))).toHaveLength(1);
    expect(logged[0]?.level).toBe('warn');
  });
});
