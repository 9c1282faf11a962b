/**
 * The tool calls running in this OpenCode process, over every project instance the process serves. An
 * agent's shell can reach the host's own HTTP server (`opencode serve`, which desktop and editor clients
 * run) and send `/grade` through it; the plugin sees that command as the user's, from the user's own
 * process. While a call runs, such a `/grade` may be the call's doing: it is stored as suspect.
 */
const running = new Set<string>();

/** The key of one call: the session and the provider's call id. */
export function runningCallKey(sessionId: string, callId: string): string {
  return `${sessionId}\u0000${callId}`;
}

export function callStarted(key: string): void {
  running.add(key);
}

export function callEnded(key: string): void {
  running.delete(key);
}

/** Forgets the calls of a session whose turn ended (a call the host never reported as ended included). */
export function sessionCallsEnded(sessionId: string): void {
  const prefix = runningCallKey(sessionId, '');
  for (const key of running) if (key.startsWith(prefix)) running.delete(key);
}

/** How many tool calls run now in this process. */
export function runningCallCount(): number {
  return running.size;
}
