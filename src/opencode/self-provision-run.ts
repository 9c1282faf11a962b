/**
 * What self-provisioning does when it runs; self-provision.ts schedules it and loads this module
 * only then, so plugin start never loads it.
 *
 * Installed the OpenCode way (`opencode plugin …`, or a package name in the `"plugin"` array), the
 * package's postinstall never runs, so the plugin adds the agents, skills, commands and AGENTS.md
 * section missing from the OpenCode config folder — the same steps as `agent-tracker setup`, minus
 * the plugin folder and entry (OpenCode loads the plugin already, from where the user said). It never
 * puts back what the user removed (the database records what was there).
 *
 * The presence check is imported when this runs, the setup steps only when something is missing.
 */
import fs from 'node:fs';
import { opencodeConfigDir } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import { planProvisioning, provisionedMessage } from '../core/provisioning/plan.js';
import type { TrackingService } from '../core/tracking/service.js';
import { storeOpening } from '../core/store/access.js';
import type { StoreAccess } from '../core/store/access.js';

const TOAST_TITLE = 'agent-tracker set up OpenCode';

export interface SelfProvisionToast {
  title: string;
  message: string;
  variant: 'info' | 'warning';
}

export interface SelfProvisionDeps {
  service: TrackingService<StoreAccess>;
  logger: Logger;
  showToast: (toast: SelfProvisionToast) => Promise<unknown>;
  /** Defaults to `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`. */
  configDir?: string;
  /** The package whose agents, skills and commands are provisioned; defaults to this one. */
  root?: string;
}

/** What one run did. */
export interface SelfProvisionOutcome {
  /** Labels of what was added (e.g. `agent spec-agent`). */
  added: string[];
  /** Item ids left out because the user removed them. */
  removedByUser: string[];
  /** One line per step that failed. */
  failures: string[];
}

/** Why the config folder cannot be written to, if it cannot (a missing folder is made by setup). */
function unwritableReason(configDir: string): string | undefined {
  try {
    if (fs.existsSync(configDir)) fs.accessSync(configDir, fs.constants.W_OK);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  }
}

const NOTHING: SelfProvisionOutcome = { added: [], removedByUser: [], failures: [] };

/** Checks the config folder and provisions what is missing and was never removed; never throws. */
export async function selfProvision(deps: SelfProvisionDeps): Promise<SelfProvisionOutcome> {
  const { service, logger } = deps;
  try {
    const configDir = deps.configDir ?? opencodeConfigDir();
    const [{ inspectItems }, { packageRoot }] = await Promise.all([import('../provisioning/presence.js'), import('../provisioning/package-root.js')]);
    const root = deps.root ?? packageRoot();
    // What the user removed is known from the record only: without it, nothing is added this time.
    await storeOpening(service.store);
    if (!service.store.attached) {
      logger.info(`agent-tracker: the database is not open, so it cannot tell what you removed from ${configDir}; nothing is added at this start`);
      return NOTHING;
    }
    const before = inspectItems(configDir, root);
    const recorded = service.provisionedItems(configDir);
    const plan = planProvisioning(before, new Set(recorded));
    if (plan.record.length > 0) service.recordProvisioned(configDir, plan.record);
    if (plan.provision.length === 0) return { ...NOTHING, removedByUser: plan.removedByUser };

    const unwritable = unwritableReason(configDir);
    if (unwritable) {
      const line = `agent-tracker cannot write to the OpenCode config folder ${configDir} (${unwritable}), so it added nothing; tracking goes on. Make the folder writable and restart OpenCode, or run "agent-tracker setup".`;
      logger.error(line);
      await deps.showToast({ title: TOAST_TITLE, message: line, variant: 'warning' }).catch(() => undefined);
      return { added: [], removedByUser: plan.removedByUser, failures: [line] };
    }

    // The first provisioning says it is starting: after OpenCode's own silent install, this is the plugin's first word.
    if (recorded.length === 0) logger.info(`agent-tracker: first start in ${configDir}: setting up its ${plan.provision.join(', ')} (once; a toast says what was added)`);
    const setup = await import('../provisioning/index.js');
    const report = setup.provision({ configDir, root, contentOnly: true, skipItems: new Set(plan.removedByUser) });
    const wanted = new Set(plan.provision);
    const added = inspectItems(configDir, root).filter((item) => item.present && wanted.has(item.id));
    service.recordProvisioned(configDir, added.map((item) => item.id));
    service.flush('self-provisioning');

    const failures = report.steps
      .filter((step) => step.status === 'failed')
      .map((step) => `agent-tracker could not set up its ${step.step} in ${configDir}: ${step.messages.join('; ')}`);
    for (const failure of failures) logger.error(failure);
    const labels = added.map((item) => item.label);
    if (labels.length > 0) logger.info(provisionedMessage(labels), { added: added.map((item) => item.id) });
    if (labels.length > 0 || failures.length > 0) {
      const message = [labels.length > 0 ? provisionedMessage(labels) : '', ...failures].filter(Boolean).join('\n');
      await deps.showToast({ title: TOAST_TITLE, message, variant: failures.length > 0 ? 'warning' : 'info' }).catch(() => undefined);
    }
    return { added: labels, removedByUser: plan.removedByUser, failures };
  } catch (error) {
    const line = `agent-tracker could not check or set up its agents and skills, tracking goes on: ${(error as Error).message}. Run "agent-tracker setup" to do it by hand.`;
    logger.error(line);
    return { ...NOTHING, failures: [line] };
  }
}
