/** The arguments `report` takes, checked the same way for the CLI and the MCP server. */
import { REPORT_GROUPINGS } from '../core/report/report.js';
import type { ReportGrouping } from '../core/report/report.js';
import { CliError } from './context.js';
import { checkTimeZone, PERIODS } from '../core/report/periods.js';
import type { Period } from '../core/report/periods.js';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `--since` (or `--until`, named by `flag`) as a full ISO time in UTC, the form every stored time has. */
export function parseSince(value: string | undefined, flag = '--since'): string | undefined {
  if (value === undefined) return undefined;
  const time = ISO_DATE.test(value.trim()) ? Date.parse(value.trim()) : Number.NaN;
  if (Number.isNaN(time)) throw new CliError(`${flag} must be an ISO date or time such as 2025-01-31 or 2025-01-31T12:00:00Z, got "${value}"`);
  return new Date(time).toISOString();
}

/** `--period`: undefined without it. */
export function parsePeriod(value: string | undefined): Period | undefined {
  if (value === undefined) return undefined;
  if (!(PERIODS as readonly string[]).includes(value)) throw new CliError(`--period must be one of ${PERIODS.join(', ')}, got "${value}"`);
  return value as Period;
}

/** `--tz`: an IANA time zone the runtime knows. */
export function parseTimeZone(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return checkTimeZone(value);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

export function parseGrouping(value: string | undefined): ReportGrouping {
  if (value === undefined) return 'setup';
  if (!(REPORT_GROUPINGS as readonly string[]).includes(value)) {
    throw new CliError(`--by must be one of ${REPORT_GROUPINGS.join(', ')}, got "${value}"`);
  }
  return value as ReportGrouping;
}

