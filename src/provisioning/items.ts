/**
 * Names for the single things setup puts into an OpenCode config folder, as they are recorded in the
 * database: `agent:NAME`, `skill:NAME`, `command:NAME` and `agents-md`. Self-provisioning compares
 * what is present with what was recorded, so a recorded item that is gone was removed by the user.
 */

/** One shipped agent definition in the config's `"agent"` object. */
export function agentItem(name: string): string {
  return `agent:${name}`;
}

/** One shipped skill folder. */
export function skillItem(name: string): string {
  return `skill:${name}`;
}

/** One shipped slash command file. */
export function commandItem(name: string): string {
  return `command:${name}`;
}

/** The marker-delimited scoring section in AGENTS.md. */
export const AGENTS_MD_ITEM = 'agents-md';
