/**
 * Is this shell command a test-suite run? A pure recognizer over the bash tool's command, and the
 * session's red → green state machine that says whether a session ended green after being red.
 */

/** The runner a command was recognised as. */
export type TestRunner =
  | 'npm' | 'pnpm' | 'yarn' | 'bun' | 'jest' | 'vitest' | 'mocha' | 'pytest' | 'go' | 'cargo'
  | 'maven' | 'gradle' | 'rspec' | 'phpunit' | 'dotnet' | 'custom';

/**
 * The runner a bare simple command runs, or undefined. The program (its first word; a path counts by
 * its file name: `./node_modules/.bin/jest`) picks the runner, whose pattern then checks the whole
 * command. Anchored at the start so `echo "npm test"` or `grep pytest` are not test runs. The patterns
 * live in the function, not in module constants, so that mutation testing can tell which tests reach
 * each one (a module constant is built at load, outside every test); a bash command tests at most two.
 */
function builtInRunner(bare: string): TestRunner | undefined {
  const program = /^\S*/.exec(bare)?.[0] ?? '';
  const name = program.slice(program.lastIndexOf('/') + 1);
  const command = name + bare.slice(program.length);
  switch (name) {
    case 'npm': return /^npm\s+(?:run\s+|run-script\s+)?(?:test|t)(?::[\w:-]+)?(?:\s|$)/.test(command) ? 'npm' : undefined;
    case 'pnpm': return /^pnpm\s+(?:run\s+)?test(?::[\w:-]+)?(?:\s|$)/.test(command) ? 'pnpm' : undefined;
    case 'yarn': return /^yarn\s+(?:run\s+)?test(?::[\w:-]+)?(?:\s|$)/.test(command) ? 'yarn' : undefined;
    case 'bun': return /^bun\s+(?:run\s+)?test(?::[\w:-]+)?(?:\s|$)/.test(command) ? 'bun' : undefined;
    case 'jest': return /^jest(?:\s|$)/.test(command) ? 'jest' : undefined;
    case 'vitest': return /^vitest(?:\s|$)/.test(command) ? 'vitest' : undefined;
    case 'mocha': return /^mocha(?:\s|$)/.test(command) ? 'mocha' : undefined;
    case 'pytest': case 'py.test': case 'python': case 'python3': case 'uv': case 'poetry':
      return /^(?:(?:python3?|uv\s+run|poetry\s+run)\s+(?:-m\s+)?)?(?:\S*\/)?py\.?test(?:\s|$)/.test(command) ? 'pytest' : undefined;
    case 'go': return /^go\s+test(?:\s|$)/.test(command) ? 'go' : undefined;
    case 'cargo': return /^cargo\s+(?:test|nextest\s+run)(?:\s|$)/.test(command) ? 'cargo' : undefined;
    case 'mvn': case 'mvnw': return /^mvnw?\s+(?:\S+\s+)*?(?:test|verify)(?:\s|$)/.test(command) ? 'maven' : undefined;
    case 'gradle': case 'gradlew': return /^gradlew?\s+(?:\S+\s+)*?(?::?[\w:-]*:)?(?:test|check)(?:\s|$)/.test(command) ? 'gradle' : undefined;
    case 'rspec': case 'rake': case 'bundle': return /^(?:bundle\s+exec\s+)?(?:rspec|rake\s+spec)(?:\s|$)/.test(command) ? 'rspec' : undefined;
    case 'phpunit': return /^phpunit(?:\s|$)/.test(command) ? 'phpunit' : undefined;
    case 'php': case 'artisan': return /^(?:php\s+)?artisan\s+test(?:\s|$)/.test(command) ? 'phpunit' : undefined;
    case 'dotnet': return /^dotnet\s+test(?:\s|$)/.test(command) ? 'dotnet' : undefined;
    default: return undefined;
  }
}

const MAX_WRAPPERS = 8;

/** A simple command with its environment assignments and wrappers (`npx`, `time`...: they run the command after them) stripped. */
function bareCommand(simple: string): string {
  const wrapper = /^(?:(?:npx|pnpx|bunx|time|command|exec|nice|env)(?:\s+-\S+)*\s+|yarn\s+exec\s+|pnpm\s+exec\s+|(?:[A-Za-z_][A-Za-z0-9_]*=\S*)\s+)/;
  let command = simple.trim().replace(/^\(+\s*/, '');
  for (let i = 0; i < MAX_WRAPPERS; i += 1) {
    const stripped = command.replace(wrapper, '');
    if (stripped === command) break;
    command = stripped;
  }
  return command;
}

/**
 * The test runner `command` runs, or undefined when it runs none: each simple command of the line
 * (split at `&&`, `||`, `;`, `|`, newlines) is matched after leading `VAR=value` assignments and
 * wrappers are stripped. `extraPatterns` (from the plugin's options) are matched against each simple
 * command as it is, and count as `custom`.
 */
export function recognizeTestRun(command: string, extraPatterns: readonly RegExp[] = []): TestRunner | undefined {
  for (const simple of command.split(/&&|\|\||[;|\n]/)) {
    const bare = bareCommand(simple);
    if (bare === '') continue;
    const runner = builtInRunner(bare);
    if (runner) return runner;
    if (extraPatterns.some((pattern) => pattern.test(bare))) return 'custom';
  }
  return undefined;
}

/**
 * Turns plugin-option strings into patterns; a string that is not a valid regular expression is
 * reported, not thrown, so one bad option does not turn tracking off.
 */
export function compileTestPatterns(sources: readonly string[]): { patterns: RegExp[]; invalid: string[] } {
  const patterns: RegExp[] = [];
  const invalid: string[] = [];
  for (const source of sources) {
    try {
      patterns.push(new RegExp(source));
    } catch {
      invalid.push(source);
    }
  }
  return { patterns, invalid };
}

/** A session's test state: whether its last run failed, and whether it has turned green after red. */
export interface TestState {
  red: boolean;
  recovered: boolean;
}

export const INITIAL_TEST_STATE: TestState = { red: false, recovered: false };

/**
 * The next state after a test run and the change to the session's `testRecoveries` (0 or 1 per
 * session): +1 when a run passes after a failure, -1 when a recovered session goes red again, so the
 * stored count says whether the session ENDED green after being red.
 */
export function nextTestState(state: TestState, passed: boolean): { state: TestState; recoveryDelta: number } {
  if (passed) {
    if (state.red && !state.recovered) return { state: { red: false, recovered: true }, recoveryDelta: 1 };
    return { state: { red: false, recovered: state.recovered }, recoveryDelta: 0 };
  }
  if (state.recovered) return { state: { red: true, recovered: false }, recoveryDelta: -1 };
  return { state: { red: true, recovered: false }, recoveryDelta: 0 };
}
