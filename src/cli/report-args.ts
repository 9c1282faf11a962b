/** The arguments `report` takes, checked the same way for the CLI and the MCP server. */
import { REPORT_GROUPINGS } from '../core/report/report.js';
import type { ReportGrouping } from '../core/report/report.js';
import { CliError } from './context.js';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `--since` as a full ISO time in UTC, the form every stored time has. */
export function parseSince(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const time = ISO_DATE.test(value.trim()) ? Date.parse(value.trim()) : Number.NaN;
  if (Number.isNaN(time)) throw new CliError(`--since must be an ISO date or time such as 2025-01-31 or 2025-01-31T12:00:00Z, got "${value}"`);
  return new Date(time).toISOString();
}

export function parseGrouping(value: string | undefined): ReportGrouping {
  if (value === undefined) return 'setup';
  if (!(REPORT_GROUPINGS as readonly string[]).includes(value)) {
    throw new CliError(`--by must be one of ${REPORT_GROUPINGS.join(', ')}, got "${value}"`);
  }
  return value as ReportGrouping;
}

