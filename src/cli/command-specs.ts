/**
 * The one table of what every `agent-tracker` command takes: its arguments, every option with its
 * default, and an example. `--help` is rendered from it (src/cli/help.ts) and "did you mean" reads
 * it, so a new option is documented in one place. Commands still parse their own arguments.
 */

/** The CLI's entry point of a command module. */
export type CommandRun = (args: string[], output: { out(text: string): void; err(text: string): void }) => Promise<void>;

export interface OptionSpec {
  /** The long name without the dashes. */
  name: string;
  /** What the value looks like (`PATH`, `ISO`); absent for a switch. */
  value?: string;
  /** The default as the user would write it, or what happens without the option. */
  default?: string;
  about: string;
}

export interface CommandSpec {
  /** The positional arguments as usage shows them (`COMMIT N`, `[AGENT]`). */
  args: string;
  about: string;
  options: readonly OptionSpec[];
  examples: readonly string[];
  load: () => Promise<{ run: CommandRun }>;
}

/** Options every command accepts. */
export const GLOBAL_OPTION_SPECS: readonly OptionSpec[] = [
  { name: 'db', value: 'PATH', default: '$AGENT_TRACKER_DB_PATH, else the plugin option, else ~/.config/opencode/agent-tracker.lmdb', about: 'the database to use (relative to the current folder)' },
  { name: 'json', default: 'off', about: 'print one JSON document instead of text' },
  { name: 'help', about: 'this help' },
];

const PROJECT: OptionSpec = { name: 'project', value: 'PATH', default: 'the current folder', about: 'the project folder' };
const DRY_RUN: OptionSpec = { name: 'dry-run', default: 'off', about: 'say what would change and change nothing' };

export const COMMAND_SPECS: Readonly<Record<string, CommandSpec>> = {
  status: {
    args: '[AGENT]',
    about: 'health sheet of one or all agents',
    options: [],
    examples: ['agent-tracker status', 'agent-tracker status build --json'],
    load: () => import('./commands/status.js'),
  },
  doctor: {
    args: '',
    about: 'database path, size, schema, counts, flushes, backups and the install',
    options: [],
    examples: ['agent-tracker doctor', 'agent-tracker doctor --db ./other.lmdb --json'],
    load: () => import('./commands/doctor.js'),
  },
  'prior-art': {
    args: '"TEXT"',
    about: 'what worked and what failed before on a similar task',
    options: [
      PROJECT,
      { name: 'scope', value: 'S', default: 'every scope', about: 'only work of this scope' },
      { name: 'agent', value: 'A', default: 'every agent', about: 'only work of this agent' },
      { name: 'max', value: 'N', default: '5', about: 'at most N results' },
    ],
    examples: ['agent-tracker prior-art "add rate limiting to the login endpoint"'],
    load: () => import('./commands/prior-art.js'),
  },
  setup: {
    args: '',
    about: 'set up OpenCode: plugin folder, config entry, skills, agents, AGENTS.md',
    options: [DRY_RUN, { name: 'mcp', value: 'opencode|claude-code', default: 'none', about: 'register the MCP server with this client instead' }],
    examples: ['agent-tracker setup --dry-run', 'agent-tracker setup --mcp claude-code'],
    load: () => import('./commands/setup.js'),
  },
  'init-project': {
    args: '[PATH]',
    about: 'classify a project folder (default: the current one) and store its profile',
    options: [],
    examples: ['agent-tracker init-project ~/code/shop'],
    load: () => import('./commands/init-project.js'),
  },
  migrate: {
    args: '[DIR]',
    about: 'merge a legacy DIR/~/.config/opencode database (default DIR: the current folder)',
    options: [],
    examples: ['agent-tracker migrate ~/old-project'],
    load: () => import('./commands/migrate.js'),
  },
  grade: {
    args: 'COMMIT N',
    about: 'your own grade (-1 bad, 1 neutral, 2 good, 5 excellence) of a commit a tracked session made; COMMIT: a hash, a short hash, HEAD or HEAD~N',
    options: [
      { name: 'note', value: 'TEXT', default: 'none', about: 'why, in a few words' },
      PROJECT,
      { name: 'replace', default: 'off', about: 'correct your earlier grade of the commit (the later one counts; the journal keeps both)' },
    ],
    examples: ['agent-tracker grade HEAD 5', 'agent-tracker grade HEAD~2 -1 --note "broke the build"', 'agent-tracker grade 1a2b3c4 2', 'agent-tracker grade 1a2b3c4 -1 --replace'],
    load: () => import('./commands/grade.js'),
  },
  revive: {
    args: 'AGENT',
    about: 'put a halted agent back to work (SP 1)',
    options: [],
    examples: ['agent-tracker revive build'],
    load: () => import('./commands/revive.js'),
  },
  review: {
    args: '',
    about: 'list the suspect user-only records (made without a terminal during a session) and confirm or drop each',
    options: [
      { name: 'confirm', value: 'ID', default: 'none', about: 'you made it: it stops warning in every later report' },
      { name: 'drop', value: 'ID', default: 'none', about: 'you did not make it: it is marked dropped and stops warning' },
    ],
    examples: ['agent-tracker review', 'agent-tracker review --confirm 1'],
    load: () => import('./commands/review.js'),
  },
  report: {
    args: '',
    about: 'outcomes per agent x model',
    options: [
      { name: 'project', value: 'PATH', default: 'every project', about: 'only work in this project folder' },
      { name: 'since', value: 'ISO', default: 'all time', about: 'only sessions that began at or after this date or time (2025-01-31 or 2025-01-31T12:00:00Z)' },
      { name: 'until', value: 'ISO', default: 'now', about: 'only sessions that began before this date or time' },
      { name: 'period', value: 'day|week|month', default: 'none', about: 'one row per period too (a session counts in the period it began; weeks start on Monday)' },
      { name: 'tz', value: 'ZONE', default: "this machine's time zone", about: 'with --period: the IANA time zone of the periods (UTC, Europe/Berlin, ...)' },
      { name: 'source', value: 'live|backfill', default: 'both', about: 'only live-tracked or only backfilled sessions' },
      { name: 'by', value: 'setup|agent|model|project|session', default: 'setup (agent x model)', about: 'one row per setup, agent, model, setup and project, or session (newest first, with its task)' },
      { name: 'wide', default: 'off', about: 'every column in the text table (the default shows the main ones in 100 columns)' },
      { name: 'explain', default: 'off', about: 'print what every column means, as text, and nothing else (not with --json, --csv or --html)' },
      { name: 'csv', default: 'off', about: 'print CSV rows (the same rows as --json)' },
      { name: 'html', value: 'FILE', default: 'none', about: 'write a self-contained page with charts to FILE' },
    ],
    examples: [
      'agent-tracker report',
      'agent-tracker report --period week --tz Europe/Berlin',
      'agent-tracker report --since 2025-01-01 --until 2025-02-01 --by model',
      'agent-tracker report --by session',
      'agent-tracker report --explain',
      'agent-tracker report --html report.html',
    ],
    load: () => import('./commands/report.js'),
  },
  recommend: {
    args: '',
    about: 'the best model per agent for a project, and --apply to write it into opencode.json',
    options: [
      PROJECT,
      { name: 'prefer', value: 'quality|balanced|cheap', default: 'balanced', about: 'what to favour' },
      { name: 'apply', default: 'off', about: "write the picks into the project's opencode.json (asks first)" },
      { name: 'global', default: 'off', about: "with --apply: the global opencode.json, every project's (asks, or needs --yes)" },
      { ...DRY_RUN, about: 'with --apply: show the change, write nothing' },
      { name: 'yes', default: 'off', about: 'with --apply: do not ask' },
      { name: 'include-uncertain', default: 'off', about: 'with --apply: also the picks with too little evidence' },
      { name: 'backtest', default: 'off', about: 'replay your history in time order: how often following the pick (with only the past known) did better than what was used' },
    ],
    examples: ['agent-tracker recommend', 'agent-tracker recommend --backtest', 'agent-tracker recommend --apply --dry-run', 'agent-tracker recommend --apply --global --yes'],
    load: () => import('./commands/recommend.js'),
  },
  export: {
    args: '[FILE]',
    about: 'all records as NDJSON (stdout without FILE)',
    options: [],
    examples: ['agent-tracker export backup.ndjson'],
    load: () => import('./commands/export.js'),
  },
  import: {
    args: 'FILE|-',
    about: 'merge an export: absent records are added, agent sheets both hold are pooled',
    options: [],
    examples: ['agent-tracker import backup.ndjson', 'ssh laptop agent-tracker export | agent-tracker import -'],
    load: () => import('./commands/import.js'),
  },
  mcp: {
    args: '',
    about: 'serve the read-only tools (report, recommend, prior_art, status, project_profile) to MCP clients over stdio',
    options: [],
    examples: ['agent-tracker mcp'],
    load: () => import('./commands/mcp.js'),
  },
  repair: {
    args: '',
    about: 'rebuild a damaged database from what can be read and the newest snapshot',
    options: [DRY_RUN],
    examples: ['agent-tracker repair --dry-run'],
    load: () => import('./commands/repair.js'),
  },
  config: {
    args: 'set KEY VALUE | get KEY | list | confirm',
    about: 'change plugin options; restraining ones are pinned, and a change made elsewhere applies the stricter value until you confirm',
    options: [],
    examples: ['agent-tracker config list', 'agent-tracker config set haltBlocksTools false', 'agent-tracker config confirm'],
    load: () => import('./commands/config.js'),
  },
  backfill: {
    args: '',
    about: "import OpenCode's past sessions (read-only); running it again adds nothing twice",
    options: [
      { name: 'since', value: 'ISO', default: 'all time', about: 'only sessions from this date on' },
      { name: 'project', value: 'PATH', default: 'every project', about: 'only sessions of this project folder' },
      { name: 'from', value: 'DIR', default: "OpenCode's data folder", about: 'read the history from DIR' },
      DRY_RUN,
    ],
    examples: ['agent-tracker backfill --dry-run', 'agent-tracker backfill --since 2025-01-01'],
    load: () => import('./commands/backfill.js'),
  },
};
