/**
 * The OpenCode plugin entry. Resolves settings, opens the shared store, and wires hooks and tools.
 * If settings are bad or the database cannot be opened, it logs one clear error and returns no
 * hooks: OpenCode keeps working, untracked.
 *
 * Only a default export: OpenCode refuses a plugin file with any non-function named export.
 */
import type { Hooks, Plugin, PluginInput } from '@opencode-ai/plugin';
import { opencodeConfigDir, resolveSessionConfig } from '../core/config.js';
import type { TrackerConfig } from '../core/config.js';
import { trackerFileEditCheck } from '../core/integrity/tracker-files.js';
import { STORE_OPEN_WAIT_MS } from '../core/store/access.js';
import { userOnlyGuard } from '../core/integrity/user-only.js';
import { acquireRemoteStore, releaseRemoteStore } from './remote/client.js';
import type { RemoteStore } from './remote/client.js';
import type { V2Cleanup } from '../adapters/opencode-v2/host-types.js';
import { flushOnExit } from '../core/tracking/exit-flush.js';
import { TrackingService } from '../core/tracking/service.js';
import { statusExporter } from '../core/tracking/status-export.js';
import { confineGrepToNonEnvFiles, createEnvFileGuard, fileSystemIgnoresCase } from './guards/env-guard.js';
import { maskToolOutput } from './guards/output-mask.js';
import type { ToolOutput } from './guards/output-mask.js';
import { ProjectSecrets } from './guards/project-secrets.js';
import { maskModelMessages } from './guards/message-mask.js';
import { maskSystemPrompt } from './guards/system-mask.js';
import { STORED_TEXT_LIMITS, StoredTextMasker } from './guards/stored-text.js';
import { EnvFolders, envFoldersPath } from './guards/env-folders.js';
import { getAllProjects } from '../core/projects/profiles.js';
import { scheduleHistoryImport } from './background-import.js';
import { createHooks } from './hooks.js';
import { createGradeCommand } from './grade-command.js';
import { hostLogger } from './host-logger.js';
import { startSelfProvisioning } from './self-provision.js';
import { endSession, indexMaintainer, sizeWatcher, storeNotifier } from './store-health.js';
import { pinnedPluginOptions, trustPluginOptions } from './option-trust.js';
import { createStatusSheets, showStartWarnings } from './toast.js';
import { createTools, TOOL_NAMES } from './tools/index.js';

/** The project a plugin instance works in: the git worktree when there is one, else the directory. */
function projectOf(input: PluginInput): string {
  return input.worktree && input.worktree !== '/' ? input.worktree : input.directory;
}

/** Whether the settings ask for telemetry at all (adapters/telemetry/start.ts resolves and checks them). */
function telemetryAsked(option: unknown): boolean {
  return option !== undefined || process.env.AGENT_TRACKER_TELEMETRY === '1';
}

/** Whether OpenCode 1 started the plugin (`server`) in this process. */
let serverStarted = false;

const server: Plugin = async (input, options) => {
  serverStarted = true;
  // Sessions created from now on are live tracking's; the history import (started later, by `ready`) leaves them.
  const startedAt = Date.now();
  const logger = hostLogger(input.client);
  const notify = storeNotifier(input.client, logger);
  let config: TrackerConfig | undefined;
  let store: RemoteStore;
  let trust;
  // The store lives in a worker thread (lmdb never loads on OpenCode's main thread: ./remote/).
  // Until it is open and what waited at its start is merged (spills, migrations; the file may be
  // checked out of process first), the hooks record into memory; `ready` then writes what waited.
  const late: { service?: TrackingService<RemoteStore>; knownProjects?: (opened: RemoteStore) => void } = {};
  let wired = (): void => undefined;
  const wiring = new Promise<void>((resolve) => (wired = resolve));
  const ready = (): void => {
    void wiring.then(() => {
      late.knownProjects?.(store);
      late.service?.storeAttached();
      late.service?.flush('database ready');
    });
  };
  try {
    trust = trustPluginOptions(options ?? {}, projectOf(input));
    // Restraining options the user did not set through `agent-tracker config`: the stricter value, shown.
    const pinned = pinnedPluginOptions(trust.options);
    const resolved = resolveSessionConfig({ options: pinned.options });
    config = resolved.config;
    trust = { ...trust, notices: [...trust.notices, ...pinned.lines, ...resolved.warnings] };
    store = acquireRemoteStore(
      { path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, directory: input.directory, rules: config.rules },
      { problem: notify, ready },
      logger,
    );
  } catch (error) {
    logger.error(`agent-tracker is off for this session: ${(error as Error).message}`);
    return {};
  }

  if (trust.notices.length > 0) showStartWarnings(input.client, logger, trust.notices);
  const project = projectOf(input);
  const ownTools = new Set<string>(TOOL_NAMES);
  // Secrets of the project's env files: scanned in the background just after the start (the first
  // tool output waits for that scan), masked in every tool output and in what is stored.
  const secrets = config.protectEnvFiles ? new ProjectSecrets(project, logger) : undefined;
  if (secrets) {
    setTimeout(() => {
      secrets.scan().catch((error: unknown) => logger.warn(`agent-tracker: scanning for .env files failed: ${(error as Error).message}`));
    }, 0);
  }
  // Stored text is masked with every known project's values (their env files read once the database is open).
  const storedText = new StoredTextMasker(secrets, logger, Date.now, new EnvFolders(envFoldersPath(config.databasePath), logger));
  if (secrets) {
    late.knownProjects = (opened) =>
      void storedText.addKnownProjects(() => getAllProjects(opened, STORED_TEXT_LIMITS.maxOtherProjects + 1).map((profile) => profile.path), project);
  }
  const service = new TrackingService({
    store,
    config,
    logger,
    project,
    ownTools: TOOL_NAMES,
    ...(secrets ? { maskText: (text: string) => storedText.mask(text) } : {}),
  });
  late.service = service;
  const stopExitFlush = flushOnExit(service);
  service.onFlushed(statusExporter({ store, rules: config.rules, project, always: config.exportStatus }));
  service.onFlushed(sizeWatcher(store, notify));
  const maintainer = indexMaintainer(store, logger);
  service.onFlushed(maintainer.onFlushed);
  // Telemetry's settings and exporter load only when it is asked for (option or AGENT_TRACKER_TELEMETRY=1).
  const telemetry = telemetryAsked(options?.telemetry)
    ? (await import('../adapters/telemetry/start.js')).startTelemetry({ option: options?.telemetry, logger, store, service })
    : undefined;

  // OpenCode's past sessions, imported in the background at a session's first model request or 2 s after
  // the start, whichever comes first, once the database is open (the import waits for its open).
  const historyImport = config.importHistory
    ? scheduleHistoryImport({ store, config, logger, project, startedAt, importNeeded: store.importNeeded.bind(store) })
    : undefined;

  const sheets = createStatusSheets({ client: input.client, service, logger, project });

  const hooks: Hooks = {
    ...sheets.wrapHooks(createHooks({
      service,
      logger,
      directory: project,
      ownTools,
      guards: [userOnlyGuard(config.databasePath), ...(config.protectEnvFiles ? [createEnvFileGuard({ ignoreCase: fileSystemIgnoresCase(project) })] : []), ...(secrets ? [secrets.guard] : [])],
      editsTrackerFiles: trackerFileEditCheck(opencodeConfigDir()),
      argumentRewriters: config.protectEnvFiles ? [confineGrepToNonEnvFiles] : [],
      onCommits: sheets.onCommits,
      ...(secrets ? { maskOutput: (output: ToolOutput) => maskToolOutput(output, () => secrets.masker()) } : {}),
      onGradeCommand: createGradeCommand({ client: input.client, service, logger, project }),
    })),
    tool: createTools({ service, logger, project, renderStatus: sheets.renderStatus, priorArt: (query, folder) => store.priorArt(query, folder) }),
    // AGENTS.md and instruction files reach every request through the system prompt: masked there too;
    // and tool parts are masked once more as each request is built (a failed tool's error text passes no other hook).
    ...(secrets ? { 'experimental.chat.system.transform': async (_input, output) => maskSystemPrompt(output, () => secrets.masker()) } : {}),
    ...(secrets
      ? {
          'experimental.chat.messages.transform': async (_input, output) =>
            maskModelMessages(output, () => secrets.masker(), { tools: ownTools, masker: () => storedText.masker() }),
        }
      : {}),
    dispose: async () => {
      stopSelfProvisioning();
      historyImport?.stop();
      stopExitFlush();
      maintainer.stop();
      // A session disposed right after its start: its last flush waits for the store to open (else it is
      // spilled). A process that recorded nothing never started the store, and waits for nothing.
      if (service.pendingMutations > 0) store.start();
      await store.settled(STORE_OPEN_WAIT_MS);
      await endSession(service, logger);
      await telemetry?.shutdown();
      releaseRemoteStore(store);
    },
  };
  if (historyImport) {
    const chatParams = hooks['chat.params'];
    hooks['chat.params'] = (request, output) => {
      historyImport.now();
      return chatParams ? chatParams(request, output) : Promise.resolve();
    };
  }
  // After the hooks are ready, in the background: adds what setup provisions when it is missing.
  const stopSelfProvisioning = config.selfProvision ? startSelfProvisioning(input, { service, logger }) : () => undefined;
  wired();
  return startingStore(hooks, () => store.start());
};

type AnyFunction = (...args: never[]) => unknown;

/**
 * The hooks and tools, each starting the store's worker before it runs (a flag check once started):
 * the worker and lmdb load at the first sign of a session, so an OpenCode command that runs none
 * (`opencode models`, `opencode session list`) pays for neither. The self-provisioning check and the
 * history import start it too, through `storeOpening`; `dispose` only when something waits to be written.
 */
function startingStore(hooks: Hooks, start: () => void): Hooks {
  const first =
    <F extends AnyFunction>(run: F) =>
    (...args: Parameters<F>): ReturnType<F> => {
      start();
      return run(...args) as ReturnType<F>;
    };
  const wrapped: Record<string, unknown> = {};
  for (const [name, hook] of Object.entries(hooks)) wrapped[name] = name !== 'dispose' && typeof hook === 'function' ? first(hook as AnyFunction) : hook;
  // In place: a copy would read each tool's `args`, which builds every schema at start (tools/define.ts).
  for (const tool of Object.values(hooks.tool ?? {})) tool.execute = first(tool.execute);
  return wrapped as Hooks;
}

/**
 * OpenCode 2 calls `setup` (OpenCode 1 calls `server`): one package loads on both. The version-2
 * adapter is imported only when `setup` runs, so version 1 never pays for it.
 */
const setup = async (context: Parameters<typeof import('../adapters/opencode-v2/setup.js').setup>[0]): Promise<V2Cleanup> => {
  // OpenCode 1.18.33 calls `setup` beside `server`; once `server` has run in this process, the session
  // is recorded there, and a second adapter would count everything twice.
  if (serverStarted) return () => undefined;
  const v2 = await import('../adapters/opencode-v2/setup.js');
  // The host calls what setup returns when it unloads the plugin: the session's last flush and the store's release.
  return v2.setup(context);
};

export default { id: 'agent-tracker', server, setup };
