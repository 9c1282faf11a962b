/**
 * The OpenCode plugin entry. Resolves settings, opens the shared store, and wires hooks and tools.
 * If settings are bad or the database cannot be opened, it logs one clear error and returns no
 * hooks: OpenCode keeps working, untracked.
 *
 * Only a default export: OpenCode refuses a plugin file with any non-function named export.
 */
import type { Hooks, Plugin, PluginInput } from '@opencode-ai/plugin';
import { resolveConfig } from '../core/config.js';
import { legacyPathIn, migrateLegacy } from '../core/store/legacy.js';
import { acquireStore, releaseStore } from '../core/store/open-shared.js';
import type { Store } from '../core/store/store.js';
import type { Logger } from '../core/logger.js';
import { flushOnExit } from '../core/tracking/exit-flush.js';
import { TrackingService } from '../core/tracking/service.js';
import { statusExporter } from '../core/tracking/status-export.js';
import { confineGrepToNonEnvFiles, envFileGuard } from './guards/env-guard.js';
import { createHooks } from './hooks.js';
import { hostLogger } from './host-logger.js';
import { createStatusSheets } from './toast.js';
import { createTools, TOOL_NAMES } from './tools/index.js';
import { upgradeTermIndex } from './term-index-upgrade.js';

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

const server: Plugin = async (input, options) => {
  const logger = hostLogger(input.client);
  let config;
  let store;
  try {
    config = resolveConfig({ options: options ?? {} });
    store = acquireStore({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize });
  } catch (error) {
    logger.error(`agent-tracker is off for this session: ${(error as Error).message}`);
    return {};
  }

  migrateLegacyIn(store, input.directory, logger);
  upgradeTermIndex(store, logger);
  const project = projectOf(input);
  const ownTools = new Set<string>(TOOL_NAMES);
  const service = new TrackingService({ store, config, logger, project, ownTools: TOOL_NAMES });
  const stopExitFlush = flushOnExit(service);
  service.onFlushed(statusExporter({ store, rules: config.rules, project, always: config.exportStatus }));

  const sheets = createStatusSheets({ client: input.client, service, logger, project });

  const hooks: Hooks = {
    ...sheets.wrapHooks(createHooks({
      service,
      logger,
      directory: project,
      ownTools,
      guards: config.protectEnvFiles ? [envFileGuard] : [],
      argumentRewriters: config.protectEnvFiles ? [confineGrepToNonEnvFiles] : [],
      onCommits: sheets.onCommits,
    })),
    tool: createTools({ service, logger, project, renderStatus: sheets.renderStatus }),
    dispose: async () => {
      service.flush('dispose', { final: true });
      stopExitFlush();
      releaseStore(store);
    },
  };
  return hooks;
};

export default { id: 'agent-tracker', server };
