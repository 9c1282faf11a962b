/**
 * Starts the OpenTelemetry export when the settings ask for it. When they do not, nothing of
 * OpenTelemetry is loaded. A bad setting is one clear line in the log: tracking goes on without
 * telemetry. The exporter loads in the background; flushes before it is ready are kept and sent.
 */
import type { Logger } from '../../core/logger.js';
import type { Mutation, SessionKey } from '../../core/store/mutations.js';
import type { StoreAccess } from '../../core/store/access.js';
import { resolveTelemetry } from './settings.js';
import type { TrackingService } from '../../core/tracking/service.js';
import { packageVersion } from '../../provisioning/package-root.js';

export interface TelemetryHandle {
  /** Emits the session-end events and sends what is pending (bounded wait). */
  shutdown(): Promise<void>;
}

export function startTelemetry(input: { option: unknown; logger: Logger; store: StoreAccess; service: TrackingService<StoreAccess>; env?: NodeJS.ProcessEnv }): TelemetryHandle | undefined {
  let settings;
  try {
    settings = resolveTelemetry(input.option, input.env ?? process.env);
  } catch (error) {
    input.logger.error(`agent-tracker: ${(error as Error).message}`);
    return undefined;
  }
  if (!settings) return undefined;
  const chosen = settings;
  const waiting: [readonly Mutation[], readonly SessionKey[]][] = [];
  let exporter: { recordFlush(mutations: readonly Mutation[], created: readonly SessionKey[]): void; shutdown(): Promise<void> } | undefined;
  const loading = import('./exporter.js')
    .then(({ TelemetryExporter }) => {
      exporter = new TelemetryExporter({
        settings: chosen,
        logger: input.logger,
        version: packageVersion(),
        lookups: {
          profileOf: (projectPath) => input.store.tables.projects.get(projectPath),
          modelOfCommit: (projectPath, commit) => input.store.tables.commits.get([projectPath, commit])?.model,
        },
      });
      for (const [batch, created] of waiting.splice(0)) exporter.recordFlush(batch, created);
    })
    .catch((error: unknown) => input.logger.warn(`agent-tracker: telemetry could not start (${(error as Error).message}); tracking goes on without it`));
  input.service.onFlushed((_agents, mutations, created) => {
    try {
      if (exporter) exporter.recordFlush(mutations, created);
      else waiting.push([mutations, created]);
    } catch (error) {
      input.logger.warn(`agent-tracker: telemetry skipped a flush: ${(error as Error).message}`);
    }
  });
  return {
    async shutdown() {
      await loading;
      await exporter?.shutdown();
    },
  };
}
