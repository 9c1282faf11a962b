/**
 * The OpenCode 2 entry: `setup(ctx)` of the dual default export (src/opencode/plugin.ts keeps `server`
 * for version 1). It opens the same shared store, in the same worker thread (lmdb never loads on the
 * host's main thread: src/opencode/remote/), and TrackingService version 1 uses, and registers the
 * hooks, the event reader, the tracker's tools and `/grade` through the context's domains. A bad
 * setting or a store that cannot be opened is logged once and leaves the session untracked.
 */
import { opencodeConfigDir, resolveConfig } from '../../core/config.js';
import type { TrackerConfig } from '../../core/config.js';
import { trackerFileEditCheck } from '../../core/integrity/tracker-files.js';
import { userOnlyGuard } from '../../core/integrity/user-only.js';
import type { Logger } from '../../core/logger.js';
import { STORE_OPEN_WAIT_MS } from '../../core/store/access.js';
import { flushOnExit } from '../../core/tracking/exit-flush.js';
import { TrackingService } from '../../core/tracking/service.js';
import { confineGrepToNonEnvFiles, createEnvFileGuard, fileSystemIgnoresCase } from '../../opencode/guards/env-guard.js';
import { maskToolOutput } from '../../opencode/guards/output-mask.js';
import { ProjectSecrets } from '../../opencode/guards/project-secrets.js';
import { trustPluginOptions } from '../../opencode/option-trust.js';
import { acquireRemoteStore, releaseRemoteStore } from '../../opencode/remote/client.js';
import type { RemoteStore } from '../../opencode/remote/client.js';
import { endSession } from '../../opencode/store-health.js';
import { TOOL_NAMES } from '../../opencode/tools/index.js';
import { createEventReader, readEvents } from './event-loop.js';
import { createGradeCommandV2 } from './grade.js';
import { createV2Handlers } from './hooks.js';
import type { V2Cleanup, V2Context, V2Registration } from './host-types.js';
import { registerTools } from './register-tools.js';
import { scheduleSelfProvisioning } from './self-provision.js';

/** Version 2 hands a plugin no log client: problems go to stderr, prefixed; routine status nowhere. */
const stderrLogger: Logger = {
  info: () => undefined,
  warn: (message) => process.stderr.write(`${message}\n`),
  error: (message) => process.stderr.write(`${message}\n`),
};

function optionsOf(ctx: V2Context): Record<string, unknown> {
  const options = ctx.options;
  return typeof options === 'object' && options !== null && !Array.isArray(options) ? (options as Record<string, unknown>) : {};
}

/** Whether the host's context has the domains tracking needs (OpenCode 2 does; 1.18.x's early one does not). */
export function hasTrackingDomains(ctx: unknown): ctx is V2Context {
  if (typeof ctx !== 'object' || ctx === null) return false;
  const { tool, session, event } = ctx as { tool?: { hook?: unknown; transform?: unknown }; session?: { hook?: unknown }; event?: { subscribe?: unknown } };
  return typeof tool?.hook === 'function' && typeof tool.transform === 'function' && typeof session?.hook === 'function' && typeof event?.subscribe === 'function';
}

export interface V2SetupOptions {
  /** The project folder; the process's working folder when not given (version 2 starts in the project). */
  project?: string;
  logger?: Logger;
}

/** Builds `setup` for a project (tests pass their own folder and logger). */
export function createSetup(setupOptions: V2SetupOptions = {}): (ctx: V2Context) => Promise<V2Cleanup> {
  return async (ctx) => {
    // OpenCode 1.18.x also calls `setup`, with its early version-2 context (no tool, session or event
    // domain) beside `server`, which does the tracking there: nothing to do, nothing to say.
    if (!hasTrackingDomains(ctx)) return () => undefined;
    const logger = setupOptions.logger ?? stderrLogger;
    const project = setupOptions.project ?? process.cwd();
    let config: TrackerConfig;
    let store: RemoteStore;
    let service: TrackingService<RemoteStore>;
    try {
      const trust = trustPluginOptions(optionsOf(ctx), project);
      for (const notice of trust.notices) logger.warn(notice);
      config = resolveConfig({ options: trust.options });
      // Spills, legacy databases and the chain's tail are dealt with in the worker once the file is open; then what waited in memory is written.
      store = acquireRemoteStore(
        { path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, directory: project, rules: config.rules },
        { problem: (line) => logger.warn(`agent-tracker: ${line}`), ready: () => service.storeAttached() },
        logger,
      );
      store.start();
      const secrets = config.protectEnvFiles ? new ProjectSecrets(project, logger) : undefined;
      service = new TrackingService({ store, config, logger, project, ownTools: TOOL_NAMES, ...(secrets ? { maskText: (text: string) => secrets.maskNow(text) } : {}) });
      return await wire(ctx, { config, store, service, logger, project, secrets });
    } catch (error) {
      logger.error(`agent-tracker is off for this session: ${(error as Error).message}`);
      return () => undefined;
    }
  };
}

interface Started {
  config: TrackerConfig;
  store: RemoteStore;
  service: TrackingService<RemoteStore>;
  logger: Logger;
  project: string;
  secrets: ProjectSecrets | undefined;
}

async function wire(ctx: V2Context, started: Started): Promise<V2Cleanup> {
  const { config, store, service, logger, project, secrets } = started;
  const stopExitFlush = flushOnExit(service);
  if (secrets) secrets.scan().catch((error: unknown) => logger.warn(`agent-tracker: scanning for .env files failed: ${(error as Error).message}`));
  const tools = await registerTools(ctx, service, logger, project, (query, folder) => store.priorArt(query, folder));
  const handlers = createV2Handlers({
    service,
    logger,
    directory: project,
    ownTools: new Set(tools.names),
    guards: [userOnlyGuard(config.databasePath), ...(config.protectEnvFiles ? [createEnvFileGuard({ ignoreCase: fileSystemIgnoresCase(project) })] : [])],
    editsTrackerFiles: trackerFileEditCheck(opencodeConfigDir()),
    argumentRewriters: config.protectEnvFiles ? [confineGrepToNonEnvFiles] : [],
    ...(secrets ? { maskOutput: (output) => maskToolOutput(output, () => secrets.masker()) } : {}),
  });
  const registrations: V2Registration[] = [
    tools.registration,
    await ctx.tool.hook('execute.before', handlers['execute.before']),
    await ctx.tool.hook('execute.after', handlers['execute.after']),
    await ctx.session.hook('model.request', handlers['model.request']),
    await ctx.session.hook('prompt', handlers.prompt),
  ];
  if (ctx.command) registrations.push(await ctx.command.transform((editor) => editor.add(createGradeCommandV2({ service, logger, project }))));
  const events = readEvents(ctx.event, createEventReader(service, logger), logger);
  const stopSelfProvisioning = config.selfProvision ? scheduleSelfProvisioning(service, logger) : () => undefined;
  return async () => {
    stopSelfProvisioning();
    events.stop();
    stopExitFlush();
    for (const registration of registrations) await registration.dispose().catch(() => undefined);
    // A session ended right after its start: its last flush waits for the store to open (else it is spilled).
    await store.settled(STORE_OPEN_WAIT_MS);
    await endSession(service, logger);
    releaseRemoteStore(store);
  };
}

/** The version-2 `setup` of the dual default export. */
export const setup = createSetup();
