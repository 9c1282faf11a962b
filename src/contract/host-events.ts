/**
 * The facts a host delivers to the recorder, in the recording vocabulary every source speaks (live
 * hooks, the backfill of OpenCode's history, repair's refill): the host's own ids and times, and a
 * commit as read from git.
 */

/**
 * The host's own identity and time of an event, so recording can be replayed (backfill, refill after
 * a crash) without counting twice: `eventId` is the host's id (call, message), `at` its ISO time.
 */
export interface HostEvent {
  at?: string;
  eventId?: string;
  /**
   * The id an older version keyed the same event by (a tool call's provider call id): a replay finds
   * what it recorded under that id held too, so history recorded before the switch counts once.
   */
  legacyEventId?: string;
}

/** A finished turn of a host's history, as a replay delivers it (live hooks deliver its parts as they come). */
export interface ReplayedTurn {
  /** The host's id of the user's message that opened the turn. */
  messageId: string;
  /** The user's prompt (the message's own text, not what the host added). */
  prompt: string;
  /** Files the turn's tools edited. */
  filesEdited: string[];
  /** The host's ids of the assistant messages that answered it. */
  answeredBy: string[];
  /** ISO time the turn ended (its last answer). */
  at: string;
  /** Its answers' finished tool calls, by tool name, in the order each tool was first used. */
  tools: ReadonlyMap<string, number>;
  /** How many of those calls failed. */
  failures: number;
  /** How many commits its calls made, as git's output says. */
  commits: number;
  /** The hashes git printed for those commits (abbreviated; fewer than `commits` when some were not printed). */
  commitHashes: readonly string[];
}

/** A commit as read from git, before it is attributed to an agent. */
export interface GitCommit {
  hash: string;
  /** Parent hashes as git lists them (absent when not read): credit needs to tell merges apart. */
  parents?: string[];
  message: string;
  files: string[];
  insertions: number;
  deletions: number;
  timestamp: string;
  /** `git patch-id --stable` of its change (absent when not read): the same change again earns nothing. */
  patchId?: string;
  /** Whether no line changes once whitespace is ignored (absent when not read). */
  whitespaceOnly?: boolean;
}
