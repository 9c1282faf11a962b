/**
 * The OpenCode plugin entry. Resolves settings, opens the shared store, and wires hooks and tools.
 * If settings are bad or the database cannot be opened, it logs one clear error and returns no
 * hooks: OpenCode keeps working, untracked.
 *
 * Only a default export: OpenCode refuses a plugin file with any non-function named export.
 */
import type { Hooks, Plugin, PluginInput } from '@opencode-ai/plugin';
import { opencodeConfigDir, resolveConfig } from '../core/config.js';
import type { TrackerConfig } from '../core/config.js';
import { migrateGradeProvenance } from '../core/outcomes/legacy-grades.js';
import { trackerFileEditCheck } from '../core/integrity/tracker-files.js';
import { userOnlyGuard } from '../core/integrity/user-only.js';
import { legacyPathIn, migrateLegacy } from '../core/store/legacy.js';
import { acquireStore, releaseStore } from '../core/store/open-shared.js';
import { openChecked } from '../core/store/open-checked.js';
import type { Store } from '../core/store/store.js';
import type { Logger } from '../core/logger.js';
import { flushOnExit } from '../core/tracking/exit-flush.js';
import { TrackingService } from '../core/tracking/service.js';
import { statusExporter } from '../core/tracking/status-export.js';
import { confineGrepToNonEnvFiles, createEnvFileGuard, fileSystemIgnoresCase } from './guards/env-guard.js';
import { maskToolOutput } from './guards/output-mask.js';
import type { ToolOutput } from './guards/output-mask.js';
import { ProjectSecrets } from './guards/project-secrets.js';
import { scheduleHistoryImport } from './background-import.js';
import { createHooks } from './hooks.js';
import { createGradeCommand } from './grade-command.js';
import { hostLogger } from './host-logger.js';
import { startTelemetry } from './telemetry.js';
import { startSelfProvisioning } from './self-provision.js';
import { endSession, mergeSpilledSessions, sizeWatcher, storeNotifier } from './store-health.js';
import { trustPluginOptions } from './option-trust.js';
import { createStatusSheets } from './toast.js';
import { createTools, TOOL_NAMES } from './tools/index.js';

/** The project a plugin instance works in: the git worktree when there is one, else the directory. */
function projectOf(input: PluginInput): string {
  return input.worktree && input.worktree !== '/' ? input.worktree : input.directory;
}

/** Merges a legacy per-project database found in `directory`; a failure is logged, never fatal. */
function migrateLegacyIn(store: Store, directory: string, logger: Logger): void {
  try {
    const result = migrateLegacy(store, legacyPathIn(directory), { skipIfUnchanged: true });
    if (result.added > 0) logger.info(`agent-tracker: migrated ${result.added} legacy entries from ${result.source}`, { ...result });
  } catch (error) {
    logger.error(`agent-tracker: legacy migration from ${legacyPathIn(directory)} failed, tracking goes on: ${(error as Error).message}`);
  }
}

/** Counts grades recorded before provenance (self / agent-reported) once; a failure is logged, never fatal. */
function migrateGradesOf(store: Store, logger: Logger): void {
  try {
    migrateGradeProvenance(store);
  } catch (error) {
    logger.error(`agent-tracker: counting old grades by provenance failed, tracking goes on: ${(error as Error).message}`);
  }
}

/** One log line and one toast naming each ignored project-config key and its file; a failing toast is only logged. */
function warnIgnoredOptions(input: PluginInput, logger: Logger, notices: string[]): void {
  const message = notices.join('\n');
  logger.warn(message);
  input.client.tui
    .showToast({ body: { title: 'agent-tracker', message, variant: 'warning' } })
    .catch((error: unknown) => logger.warn(`agent-tracker: toast failed: ${(error as Error).message}`));
}

const server: Plugin = async (input, options) => {
  const logger = hostLogger(input.client);
  const notify = storeNotifier(input.client, logger);
  let config: TrackerConfig | undefined;
  let store: Store;
  let trust;
  // The file is checked out of process when it changed since it was last verified; until it is
  // cleared, the hooks record into memory (open-checked.ts). `ready` runs once it is open.
  const late: { service?: TrackingService; importHistory?: () => void } = {};
  const ready = (opened: Store): void => {
    if (!config) return;
    mergeSpilledSessions(opened, config, logger);
    migrateLegacyIn(opened, input.directory, logger);
    migrateGradesOf(opened, logger);
    late.service?.storeAttached();
    late.service?.flush('database ready');
    late.importHistory?.();
  };
  try {
    trust = trustPluginOptions(options ?? {}, projectOf(input));
    config = resolveConfig({ options: trust.options });
    store = acquireStore({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize }, (storeOptions) =>
      openChecked(storeOptions, { problem: (problem) => notify(problem.message), ready }),
    );
  } catch (error) {
    logger.error(`agent-tracker is off for this session: ${(error as Error).message}`);
    return {};
  }

  if (store.attached && !store.refusal) ready(store);
  if (trust.notices.length > 0) warnIgnoredOptions(input, logger, trust.notices);
  const project = projectOf(input);
  const ownTools = new Set<string>(TOOL_NAMES);
  // Secrets of the project's env files: scanned in the background now, masked in every tool output and in what is stored.
  const secrets = config.protectEnvFiles ? new ProjectSecrets(project, logger) : undefined;
  void secrets?.scan().catch((error: unknown) => logger.warn(`agent-tracker: scanning for .env files failed: ${(error as Error).message}`));
  const service = new TrackingService({
    store,
    config,
    logger,
    project,
    ownTools: TOOL_NAMES,
    ...(secrets ? { maskText: (text: string) => secrets.maskNow(text) } : {}),
  });
  late.service = service;
  const stopExitFlush = flushOnExit(service);
  service.onFlushed(statusExporter({ store, rules: config.rules, project, always: config.exportStatus }));
  service.onFlushed(sizeWatcher(store, notify));
  const telemetry = startTelemetry({ option: options?.telemetry, logger, store, service });

  // OpenCode's past sessions, imported in the background once the database is open for writing.
  let stopHistoryImport = (): void => undefined;
  if (config.importHistory) {
    const historyOptions = { store, config, logger, project };
    const startImport = (): void => {
      stopHistoryImport = scheduleHistoryImport(historyOptions);
    };
    if (store.attached && !store.refusal) startImport();
    else late.importHistory = startImport;
  }

  const sheets = createStatusSheets({ client: input.client, service, logger, project });

  const hooks: Hooks = {
    ...sheets.wrapHooks(createHooks({
      service,
      logger,
      directory: project,
      ownTools,
      guards: [userOnlyGuard(config.databasePath), ...(config.protectEnvFiles ? [createEnvFileGuard({ ignoreCase: fileSystemIgnoresCase(project) })] : [])],
      editsTrackerFiles: trackerFileEditCheck(opencodeConfigDir()),
      argumentRewriters: config.protectEnvFiles ? [confineGrepToNonEnvFiles] : [],
      onCommits: sheets.onCommits,
      ...(secrets ? { maskOutput: (output: ToolOutput) => maskToolOutput(output, () => secrets.masker()) } : {}),
      onGradeCommand: createGradeCommand({ client: input.client, service, logger, project }),
    })),
    tool: createTools({ service, logger, project, renderStatus: sheets.renderStatus }),
    dispose: async () => {
      stopSelfProvisioning();
      stopHistoryImport();
      stopExitFlush();
      await endSession(service, logger);
      await telemetry?.shutdown();
      releaseStore(store);
    },
  };
  // After the hooks are ready, in the background: adds what setup provisions when it is missing.
  const stopSelfProvisioning = config.selfProvision ? startSelfProvisioning(input, { service, logger }) : () => undefined;
  return hooks;
};

export default { id: 'agent-tracker', server };
