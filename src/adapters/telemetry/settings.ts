/**
 * Whether and where to send OpenTelemetry metrics and events, from the plugin option `telemetry` or
 * the standard OTEL_* variables (those only together with AGENT_TRACKER_TELEMETRY=1, so a collector
 * set up for other programs does not receive this by surprise). Off unless one of them says on.
 * Pure: the exporter that uses it (exporter.ts) and is loaded only when this returns settings.
 */

export type OtlpProtocol = 'http/protobuf' | 'http/json';
export const OTLP_PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'http/json'];

/** The OTLP/HTTP paths appended to a base endpoint, as the OTLP exporter specification says. */
export const METRICS_PATH = '/v1/metrics';
export const LOGS_PATH = '/v1/logs';

/** One export a minute by default; besides, every flush and the session's end export at once. */
export const DEFAULT_EXPORT_INTERVAL_MS = 60_000;
export const MIN_EXPORT_INTERVAL_MS = 1_000;
export const MAX_EXPORT_INTERVAL_MS = 3_600_000;

export interface TelemetrySettings {
  metricsEndpoint: string;
  logsEndpoint: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  exportIntervalMs: number;
  /** Project names as they are; otherwise a stable hash of the project path stands in for them. */
  includeProjectNames: boolean;
}

export class TelemetrySettingsError extends Error {
  override name = 'TelemetrySettingsError';
}

const OPTION_KEYS = ['endpoint', 'protocol', 'headers', 'exportIntervalMs', 'includeProjectNames'] as const;

function fail(message: string): never {
  throw new TelemetrySettingsError(`telemetry is off: ${message}`);
}

/** An http(s) URL, without a trailing slash. */
function endpointUrl(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') fail(`${name} must be an http(s) URL, got ${JSON.stringify(value)}`);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    fail(`${name} must be an http(s) URL such as http://127.0.0.1:4318, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(`${name} must use http or https, got ${JSON.stringify(value)}`);
  return url.toString().replace(/\/+$/, '');
}

function protocolOf(value: unknown, name: string): OtlpProtocol {
  if (value === undefined || value === '') return 'http/protobuf';
  if (value === 'grpc') fail(`${name} "grpc" is not supported; use http/protobuf or http/json`);
  if (!(OTLP_PROTOCOLS as readonly unknown[]).includes(value)) fail(`${name} must be one of ${OTLP_PROTOCOLS.join(', ')}, got ${JSON.stringify(value)}`);
  return value as OtlpProtocol;
}

/** `key1=value1,key2=value2` (values URL-encoded), the OTEL_EXPORTER_OTLP_HEADERS format. */
export function parseHeaderList(text: string, name: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    const key = at > 0 ? pair.slice(0, at).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) fail(`${name} must be key=value pairs separated by commas, got ${JSON.stringify(pair.trim())}`);
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      fail(`${name} has a value that is not URL-encoded: ${JSON.stringify(key)}`);
    }
    headers[key] = value;
  }
  return headers;
}

function headersOf(value: unknown, name: string): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value === 'string') return parseHeaderList(value, name);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(`${name} must be an object of strings or a "key=value,..." string`);
  const headers: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') fail(`${name}.${key} must be a string, got ${JSON.stringify(item)}`);
    headers[key] = item;
  }
  return headers;
}

function intervalOf(value: unknown): number {
  if (value === undefined) return DEFAULT_EXPORT_INTERVAL_MS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_EXPORT_INTERVAL_MS || value > MAX_EXPORT_INTERVAL_MS) {
    fail(`telemetry.exportIntervalMs must be a whole number of milliseconds from ${MIN_EXPORT_INTERVAL_MS} to ${MAX_EXPORT_INTERVAL_MS}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function fromOption(option: unknown): TelemetrySettings {
  if (typeof option !== 'object' || option === null || Array.isArray(option)) fail('option "telemetry" must be an object such as { "endpoint": "http://127.0.0.1:4318" }');
  const given = option as Record<string, unknown>;
  const unknown = Object.keys(given).find((key) => !(OPTION_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) fail(`unknown key telemetry.${unknown}; known keys: ${OPTION_KEYS.join(', ')}`);
  const base = endpointUrl(given.endpoint, 'telemetry.endpoint');
  const include = given.includeProjectNames;
  if (include !== undefined && typeof include !== 'boolean') fail(`telemetry.includeProjectNames must be true or false, got ${JSON.stringify(include)}`);
  return {
    metricsEndpoint: `${base}${METRICS_PATH}`,
    logsEndpoint: `${base}${LOGS_PATH}`,
    protocol: protocolOf(given.protocol, 'telemetry.protocol'),
    headers: headersOf(given.headers, 'telemetry.headers'),
    exportIntervalMs: intervalOf(given.exportIntervalMs),
    includeProjectNames: include ?? false,
  };
}

function fromEnvironment(env: NodeJS.ProcessEnv): TelemetrySettings | undefined {
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const metrics = env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim();
  const logs = env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT?.trim();
  if (!base && !metrics && !logs) return undefined;
  // A signal-specific endpoint is used as it is; the base endpoint gets the signal's path.
  const metricsEndpoint = metrics ? endpointUrl(metrics, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT') : base ? `${endpointUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT')}${METRICS_PATH}` : undefined;
  const logsEndpoint = logs ? endpointUrl(logs, 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT') : base ? `${endpointUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT')}${LOGS_PATH}` : undefined;
  if (!metricsEndpoint || !logsEndpoint) fail('set OTEL_EXPORTER_OTLP_ENDPOINT, or both OTEL_EXPORTER_OTLP_METRICS_ENDPOINT and OTEL_EXPORTER_OTLP_LOGS_ENDPOINT');
  return {
    metricsEndpoint,
    logsEndpoint,
    protocol: protocolOf(env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim(), 'OTEL_EXPORTER_OTLP_PROTOCOL'),
    headers: parseHeaderList(env.OTEL_EXPORTER_OTLP_HEADERS ?? '', 'OTEL_EXPORTER_OTLP_HEADERS'),
    exportIntervalMs: env.OTEL_METRIC_EXPORT_INTERVAL ? intervalOf(Number(env.OTEL_METRIC_EXPORT_INTERVAL)) : DEFAULT_EXPORT_INTERVAL_MS,
    includeProjectNames: env.AGENT_TRACKER_TELEMETRY_PROJECT_NAMES === '1',
  };
}

/**
 * The telemetry settings, or undefined when telemetry is off. The plugin option wins over the
 * environment. @throws TelemetrySettingsError (one line) for a malformed setting.
 */
export function resolveTelemetry(option: unknown, env: NodeJS.ProcessEnv = process.env): TelemetrySettings | undefined {
  if (option !== undefined) return fromOption(option);
  if (env.AGENT_TRACKER_TELEMETRY !== '1') return undefined;
  return fromEnvironment(env) ?? fail('AGENT_TRACKER_TELEMETRY=1 needs OTEL_EXPORTER_OTLP_ENDPOINT (or the _METRICS_ and _LOGS_ endpoints) to say where to send it');
}
