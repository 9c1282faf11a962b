/**
 * `.agent/status.json`: a read-only export of agent statuses for tools outside OpenCode, derived
 * from the database after each flush. The database stays the only source of truth; nothing ever
 * reads this file back except to remember which agents it listed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ensureOwnFolder, writeFileAtomic } from '../fs/atomic-write.js';
import { readOwnFileText } from '../fs/read-bounded.js';
import { toStatus } from '../rules.js';
import type { ScoringRules } from '../rules.js';
import type { StoreAccess } from '../store/access.js';
import type { AgentStatus } from '../types.js';

export const STATUS_EXPORT_DIR = '.agent';
export const STATUS_EXPORT_FILE = 'status.json';
/** Bumped when the file's shape changes, so readers can tell. */
export const STATUS_EXPORT_VERSION = 1;
/** The most of an earlier export read back (its agent list); a file past it is not ours. */
const MAX_STATUS_EXPORT_BYTES = 8 * 1024 * 1024;

/** The content of `.agent/status.json`. */
export interface StatusExport {
  version: number;
  generatedAt: string;
  project: string;
  /** Every agent that has worked in this project since the export began, sorted by id. */
  agents: AgentStatus[];
}

export interface StatusExportOptions {
  store: StoreAccess;
  rules: ScoringRules;
  project: string;
  /** Write even when the project has no `.agent/` folder (creating it): the `exportStatus` option. */
  always: boolean;
  now?: () => Date;
}

/** The agent ids an earlier export listed; none when the file is missing or not ours. */
function previouslyListed(file: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readOwnFileText(file, MAX_STATUS_EXPORT_BYTES));
  } catch {
    return [];
  }
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as { agents?: unknown }).agents)) return [];
  return ((parsed as { agents: unknown[] }).agents)
    .map((agent) => (typeof agent === 'object' && agent !== null ? (agent as { id?: unknown }).id : undefined))
    .filter((id): id is string => typeof id === 'string');
}

/** The path of the export file for a project. */
export function statusExportPath(project: string): string {
  return path.join(project, STATUS_EXPORT_DIR, STATUS_EXPORT_FILE);
}

/**
 * Writes the export for the agents a flush touched plus those already listed, read from the
 * database. Returns the path written, or undefined when the project does not want an export.
 * The file is replaced atomically, so a reader never sees half of it.
 */
export function writeStatusExport(options: StatusExportOptions, touched: readonly string[]): string | undefined {
  const folder = path.join(options.project, STATUS_EXPORT_DIR);
  if (!options.always && !fs.existsSync(folder)) return undefined;
  // A link planted at `.agent` is refused (one warning per flush), never followed out of the project.
  ensureOwnFolder(folder);
  const file = statusExportPath(options.project);
  const ids = [...new Set([...previouslyListed(file), ...touched])].sort();
  const agents: AgentStatus[] = [];
  for (const id of ids) {
    const agent = options.store.tables.agents.get(id);
    if (agent) agents.push(toStatus(agent, options.rules));
  }
  const content: StatusExport = {
    version: STATUS_EXPORT_VERSION,
    generatedAt: (options.now?.() ?? new Date()).toISOString(),
    project: options.project,
    agents,
  };
  writeFileAtomic(file, `${JSON.stringify(content, null, 2)}\n`);
  return file;
}

/** A flush listener (for `TrackingService.onFlushed`) that keeps the export up to date. */
export function statusExporter(options: StatusExportOptions): (agents: string[]) => void {
  return (agents) => {
    if (agents.length > 0) writeStatusExport(options, agents);
  };
}
