/**
 * Schedules the plugin's self-provisioning (self-provision-run.ts): one second after start, in the
 * background, once per OpenCode config folder and process. Only this small module is loaded at
 * start; the check, the decision and the setup steps load when the timer fires.
 */
import type { PluginInput } from '@opencode-ai/plugin';
import { opencodeConfigDir } from '../core/config.js';
import type { SelfProvisionDeps, SelfProvisionToast } from './self-provision-run.js';

/** How long after start the check runs: OpenCode finishes starting first. */
export const SELF_PROVISION_DELAY_MS = 1_000;
/** The toast stays up long enough to read which things were added. */
const TOAST_DURATION_MS = 15_000;

/** Config folders already handled by this process: several plugin instances (one per project) share one. */
const started = new Set<string>();

/**
 * Schedules self-provisioning in the background, once per config folder and process. Returns a
 * function that cancels it if it has not started yet (call it on dispose). Never throws, never rejects.
 */
export function startSelfProvisioning(input: Pick<PluginInput, 'client'>, deps: Omit<SelfProvisionDeps, 'showToast'>): () => void {
  const configDir = deps.configDir ?? opencodeConfigDir();
  if (started.has(configDir)) return () => undefined;
  started.add(configDir);
  const showToast = async (toast: SelfProvisionToast): Promise<unknown> =>
    input.client.tui.showToast({ body: { ...toast, duration: TOAST_DURATION_MS } });
  let ran = false;
  const timer = setTimeout(() => {
    ran = true;
    import('./self-provision-run.js')
      .then((run) => run.selfProvision({ ...deps, configDir, showToast }))
      .catch((error: unknown) => deps.logger.error(`agent-tracker could not load its self-provisioning, tracking goes on: ${(error as Error).message}`));
  }, SELF_PROVISION_DELAY_MS);
  timer.unref();
  return () => {
    clearTimeout(timer);
    // Cancelled before it ran: another instance of the plugin in this process may still do it.
    if (!ran) started.delete(configDir);
  };
}
