/**
 * The OpenTelemetry exporter: ships what measurements.ts makes of every flush as OTLP
 * metrics, and graded commits and session ends as OTLP log events, with the official SDK. Loaded
 * (dynamic import) only when telemetry is on, so a session without it never loads OpenTelemetry.
 *
 * It never blocks a hook: recording into instruments is in memory, exports run in the background,
 * and a collector that is down or slow costs one warning per session and loses only telemetry.
 */
import os from 'node:os';
import type { Attributes as OtelAttributes, Counter, Histogram } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import type { ExportResult } from '@opentelemetry/core';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtobufLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { Logger } from '../../core/logger.js';
import type { Mutation, SessionKey } from '../../core/store/mutations.js';
import { INSTRUMENTS, setupAttributes, translateFlush } from './measurements.js';
import type { TelemetryEvent, TranslateOptions } from './measurements.js';
import type { TelemetrySettings } from './settings.js';

export const SERVICE_NAME = 'agent-tracker';
/** How long an export may take before it counts as failed. */
const EXPORT_TIMEOUT_MS = 10_000;
/** How long the session's end waits for its last export; after that the telemetry is given up. */
const SHUTDOWN_WAIT_MS = 3_000;

export interface TelemetryExporterOptions {
  settings: TelemetrySettings;
  logger: Logger;
  version: string;
  lookups: Pick<TranslateOptions, 'profileOf' | 'modelOfCommit'>;
}

/** What a session did in this process, for its end event. */
interface SessionTotals {
  sessionId: string;
  agent: string;
  model: string;
  project: string;
  toolCalls: number;
  toolFailures: number;
  commits: number;
  tokens: number;
  cost: number;
}

export class TelemetryExporter {
  private readonly meters: MeterProvider;
  private readonly logs: LoggerProvider;
  private readonly instruments = new Map<string, Counter | Histogram>();
  private readonly totals = new Map<string, SessionTotals>();
  private readonly options: TelemetryExporterOptions;
  private warned = false;

  constructor(options: TelemetryExporterOptions) {
    this.options = options;
    const { settings } = options;
    const resource = resourceFromAttributes({
      'service.name': SERVICE_NAME,
      'service.version': options.version,
      // Lets a team split by person and machine.
      'host.name': os.hostname(),
      'user.name': safeUserName(),
    });
    // The reader gives up on an export after this long; the exporter's own retries stop by then too, so
    // a refused export is reported (one warning) instead of outliving the session.
    const timeoutMillis = Math.min(EXPORT_TIMEOUT_MS, settings.exportIntervalMs);
    const exporterConfig = { headers: settings.headers, timeoutMillis };
    const metricExporter: PushMetricExporter =
      settings.protocol === 'http/json'
        ? new JsonMetricExporter({ ...exporterConfig, url: settings.metricsEndpoint })
        : new ProtobufMetricExporter({ ...exporterConfig, url: settings.metricsEndpoint });
    const logExporter: LogRecordExporter =
      settings.protocol === 'http/json'
        ? new JsonLogExporter({ ...exporterConfig, url: settings.logsEndpoint })
        : new ProtobufLogExporter({ ...exporterConfig, url: settings.logsEndpoint });
    this.meters = new MeterProvider({
      resource,
      readers: [new PeriodicExportingMetricReader({ exporter: this.watchMetrics(metricExporter), exportIntervalMillis: settings.exportIntervalMs, exportTimeoutMillis: timeoutMillis })],
    });
    this.logs = new LoggerProvider({ resource, processors: [new BatchLogRecordProcessor({ exporter: this.watchLogs(logExporter) })] });
    const meter = this.meters.getMeter(SERVICE_NAME, options.version);
    for (const [name, spec] of Object.entries(INSTRUMENTS)) {
      this.instruments.set(name, spec.kind === 'counter' ? meter.createCounter(name, spec) : meter.createHistogram(name, spec));
    }
  }

  /** Records one flushed batch and starts its export in the background. */
  recordFlush(mutations: readonly Mutation[], created: readonly SessionKey[]): void {
    const translateOptions = { ...this.options.lookups, includeProjectNames: this.options.settings.includeProjectNames, created };
    const { measurements, events } = translateFlush(mutations, translateOptions);
    for (const { instrument, value, attributes } of measurements) {
      const target = this.instruments.get(instrument);
      if (target && 'add' in target) target.add(value, attributes);
      else target?.record(value, attributes);
    }
    for (const event of events) this.emit(event);
    this.addTotals(mutations);
    this.meters.forceFlush().catch((error: unknown) => this.warn(error));
  }

  /** Emits the end event of every session this process worked in, and sends what is pending. */
  async shutdown(): Promise<void> {
    for (const totals of this.totals.values()) {
      const attributes = setupAttributes(totals.agent, totals.model, totals.project, {
        profileOf: this.options.lookups.profileOf,
        includeProjectNames: this.options.settings.includeProjectNames,
      });
      this.emit({
        name: 'agent_tracker.session.end',
        attributes: {
          ...attributes,
          'agent_tracker.session.id': totals.sessionId,
          'agent_tracker.tool.calls': totals.toolCalls,
          'agent_tracker.tool.failures': totals.toolFailures,
          'agent_tracker.commits': totals.commits,
          'agent_tracker.tokens': totals.tokens,
          'agent_tracker.cost': totals.cost,
        },
      });
    }
    this.totals.clear();
    const done = Promise.all([this.meters.shutdown(), this.logs.shutdown()]).catch((error: unknown) => this.warn(error));
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, SHUTDOWN_WAIT_MS).unref())]);
  }

  private emit(event: TelemetryEvent): void {
    this.logs.getLogger(SERVICE_NAME, this.options.version).emit({ eventName: event.name, body: event.name, attributes: event.attributes as OtelAttributes });
  }

  private addTotals(mutations: readonly Mutation[]): void {
    for (const mutation of mutations) {
      if (mutation.table !== 'usage') continue;
      const [sessionId, agent, model] = mutation.key;
      const key = `${sessionId}\u0000${agent}\u0000${model}`;
      const totals = this.totals.get(key) ?? { sessionId, agent, model, project: mutation.init.project, toolCalls: 0, toolFailures: 0, commits: 0, tokens: 0, cost: 0 };
      const c = mutation.counters;
      totals.toolCalls += c.toolCalls ?? 0;
      totals.toolFailures += c.toolFailures ?? 0;
      totals.commits += c.commits ?? 0;
      totals.tokens += (c.tokensInput ?? 0) + (c.tokensOutput ?? 0) + (c.tokensReasoning ?? 0) + (c.tokensCacheRead ?? 0) + (c.tokensCacheWrite ?? 0);
      totals.cost += c.cost ?? 0;
      this.totals.set(key, totals);
    }
  }

  /** One warning per session for a collector that refuses, fails or does not answer. */
  private warn(error: unknown): void {
    if (this.warned) return;
    this.warned = true;
    const reason = error instanceof Error ? error.message : String(error);
    this.options.logger.warn(`agent-tracker: telemetry could not be sent (${reason}); tracking goes on, only telemetry is lost`);
  }

  private watched(result: ExportResult, callback: (result: ExportResult) => void): void {
    if (result.code !== ExportResultCode.SUCCESS) this.warn(result.error ?? new Error('the collector did not accept the export'));
    callback(result);
  }

  private watchMetrics(inner: PushMetricExporter): PushMetricExporter {
    return {
      export: (metrics: ResourceMetrics, callback) => inner.export(metrics, (result) => this.watched(result, callback)),
      forceFlush: () => inner.forceFlush(),
      shutdown: () => inner.shutdown(),
      ...(inner.selectAggregationTemporality ? { selectAggregationTemporality: inner.selectAggregationTemporality.bind(inner) } : {}),
      ...(inner.selectAggregation ? { selectAggregation: inner.selectAggregation.bind(inner) } : {}),
    };
  }

  private watchLogs(inner: LogRecordExporter): LogRecordExporter {
    return {
      export: (records: ReadableLogRecord[], callback) => inner.export(records, (result) => this.watched(result, callback)),
      shutdown: () => inner.shutdown(),
      forceFlush: () => inner.forceFlush(),
    };
  }
}

function safeUserName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'unknown';
  }
}
