/**
 * Self-provisioning under OpenCode 2: the same background run as version 1's (src/opencode/
 * self-provision-run.ts: agents, skills, commands, AGENTS.md missing from the config folder, never
 * what the user removed), a second after setup. Version 2 hands a plugin no toast, so what was added
 * goes to the log.
 */
import type { Logger } from '../../core/logger.js';
import type { StoreAccess } from '../../core/store/access.js';
import type { TrackingService } from '../../core/tracking/service.js';
import { SELF_PROVISION_DELAY_MS } from '../../opencode/self-provision.js';

/** Schedules it; returns a cancel for cleanup. Never throws, never rejects. */
export function scheduleSelfProvisioning(service: TrackingService<StoreAccess>, logger: Logger): () => void {
  const timer = setTimeout(() => {
    import('../../opencode/self-provision-run.js')
      .then((run) =>
        run.selfProvision({
          service,
          logger,
          showToast: (toast) => {
            logger.info(`${toast.title}: ${toast.message}`);
            return Promise.resolve();
          },
        }),
      )
      .catch((error: unknown) => logger.error(`agent-tracker could not provision the OpenCode config folder, tracking goes on: ${(error as Error).message}`));
  }, SELF_PROVISION_DELAY_MS);
  timer.unref();
  return () => clearTimeout(timer);
}
