/**
 * What the plugin provisions by itself at start, decided from what is in the config folder now and
 * what setup recorded as provisioned before. A recorded item that is gone was removed by the user and
 * is not put back; an item never recorded and missing is new (a first start after OpenCode installed
 * the package, or a newer version shipping more) and is provisioned.
 */

/** One item setup provisions, and whether the config folder has it now. */
export interface ItemState {
  id: string;
  present: boolean;
}

export interface ProvisioningPlan {
  /** Missing and never provisioned: add them. */
  provision: string[];
  /** Provisioned once, missing now: the user removed them; leave them out. */
  removedByUser: string[];
  /** Present but not yet recorded: record them, so that removing them later counts as the user's choice. */
  record: string[];
}

/** The plan for one config folder. Pure; item order is kept. */
export function planProvisioning(items: readonly ItemState[], recorded: ReadonlySet<string>): ProvisioningPlan {
  const plan: ProvisioningPlan = { provision: [], removedByUser: [], record: [] };
  for (const item of items) {
    const known = recorded.has(item.id);
    if (item.present) {
      if (!known) plan.record.push(item.id);
    } else if (known) {
      plan.removedByUser.push(item.id);
    } else {
      plan.provision.push(item.id);
    }
  }
  return plan;
}

/** The toast text after provisioning: what was added, and that a restart shows the agents. */
export function provisionedMessage(addedLabels: readonly string[]): string {
  return `agent-tracker added ${addedLabels.join(', ')} to your OpenCode config. Restart OpenCode to see the new agents, skills and commands.`;
}
