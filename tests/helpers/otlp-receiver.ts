/**
 * A loopback OTLP/HTTP receiver for the telemetry tests: collects what arrives on /v1/metrics and
 * /v1/logs and decodes it, protobuf (with a minimal wire-format reader over the OTLP field numbers)
 * and JSON alike, into one flat shape. It stops by itself after `lifetimeMs`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MetricPoint {
  name: string;
  attributes: Record<string, string | number | boolean>;
  /** A sum's value, or a histogram's sum. */
  value: number;
  /** A histogram's count (1 for a sum point). */
  count: number;
  /** Nanoseconds since the epoch, for picking the latest cumulative point. */
  time: number;
}

export interface LogEvent {
  name: string;
  attributes: Record<string, string | number | boolean>;
}

export interface Received {
  path: string;
  contentType: string;
  body: Buffer;
}

export interface OtlpReceiver {
  url: string;
  received: Received[];
  /** How many requests to answer with 503 before accepting. */
  failNext: number;
  metrics(): MetricPoint[];
  resources(): Record<string, string | number | boolean>[];
  logs(): LogEvent[];
  close(): Promise<void>;
}

// ---- protobuf wire format ------------------------------------------------------------------------

type Field = { number: number; wire: number; value: bigint | Buffer };

function readVarint(buffer: Buffer, at: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = buffer[at] as number;
    at += 1;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, at];
    shift += 7n;
  }
}

function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < buffer.length) {
    const [tag, next] = readVarint(buffer, at);
    at = next;
    const number = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (wire === 0) {
      const [value, after] = readVarint(buffer, at);
      out.push({ number, wire, value });
      at = after;
    } else if (wire === 1) {
      out.push({ number, wire, value: buffer.subarray(at, at + 8) });
      at += 8;
    } else if (wire === 2) {
      const [length, after] = readVarint(buffer, at);
      out.push({ number, wire, value: buffer.subarray(after, after + Number(length)) });
      at = after + Number(length);
    } else if (wire === 5) {
      out.push({ number, wire, value: buffer.subarray(at, at + 4) });
      at += 4;
    } else {
      throw new Error(`unexpected wire type ${wire}`);
    }
  }
  return out;
}

const all = (buffer: Buffer, number: number) => fields(buffer).filter((f) => f.number === number).map((f) => f.value as Buffer);
const one = (buffer: Buffer, number: number) => fields(buffer).find((f) => f.number === number)?.value;
const str = (value: unknown) => (Buffer.isBuffer(value) ? value.toString('utf8') : '');
const double = (value: unknown) => (Buffer.isBuffer(value) ? value.readDoubleLE(0) : 0);
const fixed64 = (value: unknown) => (Buffer.isBuffer(value) ? Number(value.readBigUInt64LE(0)) : 0);

/** AnyValue: 1 string, 2 bool, 3 int, 4 double. */
function anyValue(buffer: Buffer): string | number | boolean {
  const field = fields(buffer)[0];
  if (!field) return '';
  if (field.number === 1) return str(field.value);
  if (field.number === 2) return field.value === 1n;
  if (field.number === 3) return Number(BigInt.asIntN(64, field.value as bigint));
  if (field.number === 4) return double(field.value);
  return '';
}

/** KeyValue: 1 key, 2 value. */
function protoAttributes(list: Buffer[]): Record<string, string | number | boolean> {
  return Object.fromEntries(list.map((kv) => [str(one(kv, 1)), anyValue((one(kv, 2) as Buffer) ?? Buffer.alloc(0))]));
}

function protoMetrics(body: Buffer): MetricPoint[] {
  const points: MetricPoint[] = [];
  // ExportMetricsServiceRequest.resource_metrics(1) → ResourceMetrics.scope_metrics(2) → ScopeMetrics.metrics(2)
  for (const resourceMetrics of all(body, 1)) {
    for (const scopeMetrics of all(resourceMetrics, 2)) {
      for (const metric of all(scopeMetrics, 2)) {
        const name = str(one(metric, 1));
        // Metric.sum(7) → Sum.data_points(1) → NumberDataPoint: attributes 7, time 3, as_double 4, as_int 6
        for (const sum of all(metric, 7)) {
          for (const point of all(sum, 1)) {
            const asDouble = one(point, 4);
            const asInt = one(point, 6);
            points.push({ name, attributes: protoAttributes(all(point, 7)), value: asDouble !== undefined ? double(asDouble) : fixed64(asInt), count: 1, time: fixed64(one(point, 3)) });
          }
        }
        // Metric.histogram(9) → Histogram.data_points(1) → HistogramDataPoint: attributes 9, time 3, count 4, sum 5
        for (const histogram of all(metric, 9)) {
          for (const point of all(histogram, 1)) {
            points.push({ name, attributes: protoAttributes(all(point, 9)), value: double(one(point, 5)), count: fixed64(one(point, 4)), time: fixed64(one(point, 3)) });
          }
        }
      }
    }
  }
  return points;
}

function protoResources(body: Buffer): Record<string, string | number | boolean>[] {
  // ResourceMetrics|ResourceLogs.resource(1) → Resource.attributes(1)
  return all(body, 1).map((resourceX) => protoAttributes(all((one(resourceX, 1) as Buffer) ?? Buffer.alloc(0), 1)));
}

function protoLogs(body: Buffer): LogEvent[] {
  const events: LogEvent[] = [];
  // ExportLogsServiceRequest.resource_logs(1) → ResourceLogs.scope_logs(2) → ScopeLogs.log_records(2)
  for (const resourceLogs of all(body, 1)) {
    for (const scopeLogs of all(resourceLogs, 2)) {
      for (const record of all(scopeLogs, 2)) {
        // LogRecord: attributes 6, event_name 12
        events.push({ name: str(one(record, 12)), attributes: protoAttributes(all(record, 6)) });
      }
    }
  }
  return events;
}

// ---- OTLP JSON -----------------------------------------------------------------------------------

interface JsonKeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries(
    (list ?? []).map(({ key, value }) => [key, value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue ?? ''))]),
  );
}

interface JsonPoint {
  attributes?: JsonKeyValue[];
  timeUnixNano?: string | number;
  asDouble?: number;
  asInt?: string | number;
  count?: string | number;
  sum?: number;
}

function jsonMetrics(body: Buffer): MetricPoint[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceMetrics?: { scopeMetrics?: { metrics?: { name: string; sum?: { dataPoints?: JsonPoint[] }; histogram?: { dataPoints?: JsonPoint[] } }[] }[] }[];
  };
  const points: MetricPoint[] = [];
  for (const resourceMetrics of request.resourceMetrics ?? []) {
    for (const scopeMetrics of resourceMetrics.scopeMetrics ?? []) {
      for (const metric of scopeMetrics.metrics ?? []) {
        for (const point of metric.sum?.dataPoints ?? []) {
          points.push({ name: metric.name, attributes: jsonAttributes(point.attributes), value: point.asDouble ?? Number(point.asInt ?? 0), count: 1, time: Number(point.timeUnixNano ?? 0) });
        }
        for (const point of metric.histogram?.dataPoints ?? []) {
          points.push({ name: metric.name, attributes: jsonAttributes(point.attributes), value: point.sum ?? 0, count: Number(point.count ?? 0), time: Number(point.timeUnixNano ?? 0) });
        }
      }
    }
  }
  return points;
}

function jsonResources(body: Buffer): Record<string, string | number | boolean>[] {
  const request = JSON.parse(body.toString('utf8')) as { resourceMetrics?: { resource?: { attributes?: JsonKeyValue[] } }[]; resourceLogs?: { resource?: { attributes?: JsonKeyValue[] } }[] };
  return [...(request.resourceMetrics ?? []), ...(request.resourceLogs ?? [])].map((r) => jsonAttributes(r.resource?.attributes));
}

function jsonLogs(body: Buffer): LogEvent[] {
  const request = JSON.parse(body.toString('utf8')) as { resourceLogs?: { scopeLogs?: { logRecords?: { eventName?: string; attributes?: JsonKeyValue[] }[] }[] }[] };
  return (request.resourceLogs ?? []).flatMap((r) =>
    (r.scopeLogs ?? []).flatMap((s) => (s.logRecords ?? []).map((record) => ({ name: record.eventName ?? '', attributes: jsonAttributes(record.attributes) }))),
  );
}

// ---- the server ----------------------------------------------------------------------------------

const isJson = (received: Received) => received.contentType.includes('json');

export async function startOtlpReceiver(options: { lifetimeMs?: number; maxRequests?: number } = {}): Promise<OtlpReceiver> {
  const received: Received[] = [];
  const maxRequests = options.maxRequests ?? 500;
  const receiver = { failNext: 0 } as OtlpReceiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (received.length >= maxRequests) return void res.writeHead(429).end();
      if (receiver.failNext > 0) {
        receiver.failNext -= 1;
        return void res.writeHead(503).end();
      }
      received.push({ path: req.url ?? '', contentType: String(req.headers['content-type'] ?? ''), body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': String(req.headers['content-type'] ?? 'application/json') }).end(String(req.headers['content-type']).includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const lifetime = setTimeout(() => server.close(), options.lifetimeMs ?? 5 * 60_000);
  lifetime.unref();
  const { port } = server.address() as AddressInfo;
  const on = (suffix: string) => received.filter((r) => r.path.endsWith(suffix));
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    received,
    metrics: () => on('/v1/metrics').flatMap((r) => (isJson(r) ? jsonMetrics(r.body) : protoMetrics(r.body))),
    resources: () => received.flatMap((r) => (isJson(r) ? jsonResources(r.body) : protoResources(r.body))),
    logs: () => on('/v1/logs').flatMap((r) => (isJson(r) ? jsonLogs(r.body) : protoLogs(r.body))),
    close: () =>
      new Promise<void>((resolve) => {
        clearTimeout(lifetime);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** The latest cumulative point of each series (name + attributes). */
export function latestPoints(points: MetricPoint[]): MetricPoint[] {
  const latest = new Map<string, MetricPoint>();
  for (const point of points) {
    const key = `${point.name}${JSON.stringify(Object.entries(point.attributes).sort())}`;
    const known = latest.get(key);
    if (!known || point.time >= known.time) latest.set(key, point);
  }
  return [...latest.values()];
}

/** The total of a metric over every series whose attributes include `where`. */
export function total(points: MetricPoint[], name: string, where: Record<string, string> = {}): number {
  return latestPoints(points)
    .filter((p) => p.name === name && Object.entries(where).every(([k, v]) => p.attributes[k] === v))
    .reduce((sum, p) => sum + p.value, 0);
}
