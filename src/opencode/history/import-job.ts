/**
 * The job the plugin hands to its history-import child (import-child.ts), through the environment:
 * small and free of the importer's modules, so the plugin loads only this to start the child.
 */
import { configFromPortable, portableConfig } from '../../core/config.js';
import type { PortableConfig, TrackerConfig } from '../../core/config.js';

/** The environment variable that carries the job. */
export const IMPORT_JOB_ENV = 'AGENT_TRACKER_IMPORT_JOB';

/** What the parent asks for. */
interface ImportJob {
  location: string;
  project: string;
  createdBefore: number;
  config: PortableConfig;
}

/** The line the child prints. */
export type ImportChildResult = { ok: true; sessions: number; source?: string } | { ok: false; message: string };

/** The job as the environment carries it. */
export function encodeJob(location: string, project: string, createdBefore: number, config: TrackerConfig): string {
  const job: ImportJob = { location, project, createdBefore, config: portableConfig(config) };
  return JSON.stringify(job);
}

/** The job back from the environment's text. @throws when it is missing or not JSON. */
export function decodeJob(text: string | undefined): { location: string; project: string; createdBefore: number; config: TrackerConfig } {
  if (!text) throw new Error(`${IMPORT_JOB_ENV} is not set`);
  const job = JSON.parse(text) as ImportJob;
  return { ...job, config: configFromPortable(job.config) };
}
