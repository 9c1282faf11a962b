/**
 * Whether a finished tool call earns XP. A call that does nothing is no work: a shell command made
 * only of no-ops (`true`, `:`, `echo …`, `printf …`, `sleep N`, `exit 0`), joined by `;`, `&&`,
 * `||` or new lines, and writing nowhere (no redirect, pipe or substitution), earns nothing. It is
 * still counted as a tool call: the record keeps every fact.
 */

/** One no-op command (after trimming). */
const NO_OP = /^(?:true|:|echo(?:\s.*)?|printf(?:\s.*)?|sleep\s+[\d.]+[smhd]?|exit(?:\s+0)?)$/;
/** What makes a command more than printing: a redirect, a pipe, a substitution, a background job. */
const DOES_SOMETHING = /[>|`&]|\$\(/;

export function isNoOpCommand(command: string): boolean {
  const parts = command
    .split(/;|&&|\|\||\n/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return parts.every((part) => NO_OP.test(part) && !DOES_SOMETHING.test(part));
}
