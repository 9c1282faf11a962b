/**
 * Is this shell command a test-suite run? A pure recognizer over the bash tool's command, and the
 * session's red → green state machine that says whether a session ended green after being red.
 */

/** The runner a command was recognised as. */
export type TestRunner =
  | 'npm' | 'pnpm' | 'yarn' | 'bun' | 'jest' | 'vitest' | 'mocha' | 'pytest' | 'go' | 'cargo'
  | 'maven' | 'gradle' | 'rspec' | 'phpunit' | 'dotnet' | 'custom';

/**
 * One pattern per runner, matched against each simple command of a command line (split at `&&`, `||`,
 * `;`, `|`), after leading `VAR=value` assignments and wrappers such as `npx`/`time` are stripped.
 * Anchored at the start so `echo "npm test"` or `grep pytest` are not test runs.
 */
const RUNNER_PATTERNS: readonly (readonly [TestRunner, RegExp])[] = [
  ['npm', /^npm\s+(?:run\s+|run-script\s+)?(?:test|t)(?::[\w:-]+)?(?:\s|$)/],
  ['pnpm', /^pnpm\s+(?:run\s+)?test(?::[\w:-]+)?(?:\s|$)/],
  ['yarn', /^yarn\s+(?:run\s+)?test(?::[\w:-]+)?(?:\s|$)/],
  ['bun', /^bun\s+(?:run\s+)?test(?::[\w:-]+)?(?:\s|$)/],
  ['jest', /^(?:\S*\/)?jest(?:\s|$)/],
  ['vitest', /^(?:\S*\/)?vitest(?:\s|$)/],
  ['mocha', /^(?:\S*\/)?mocha(?:\s|$)/],
  ['pytest', /^(?:(?:python3?|uv\s+run|poetry\s+run)\s+(?:-m\s+)?)?(?:\S*\/)?py\.?test(?:\s|$)/],
  ['go', /^go\s+test(?:\s|$)/],
  ['cargo', /^cargo\s+(?:test|nextest\s+run)(?:\s|$)/],
  ['maven', /^(?:\.\/)?mvnw?\s+(?:\S+\s+)*?(?:test|verify)(?:\s|$)/],
  ['gradle', /^(?:\.\/)?gradlew?\s+(?:\S+\s+)*?(?::?[\w:-]*:)?(?:test|check)(?:\s|$)/],
  ['rspec', /^(?:bundle\s+exec\s+)?rspec(?:\s|$)/],
  ['rspec', /^(?:bundle\s+exec\s+)?rake\s+spec(?:\s|$)/],
  ['phpunit', /^(?:\S*\/)?phpunit(?:\s|$)/],
  ['phpunit', /^(?:php\s+)?artisan\s+test(?:\s|$)/],
  ['dotnet', /^dotnet\s+test(?:\s|$)/],
];

/** Wrappers that run the command after them: stripped before matching. */
const WRAPPER = /^(?:(?:npx|pnpx|bunx|time|command|exec|nice|env)(?:\s+-\S+)*\s+|yarn\s+exec\s+|pnpm\s+exec\s+|(?:[A-Za-z_][A-Za-z0-9_]*=\S*)\s+)/;
const COMMAND_SEPARATOR = /&&|\|\||[;|\n]/;
const MAX_WRAPPERS = 8;

/** A simple command with its environment assignments and wrappers stripped. */
function bareCommand(simple: string): string {
  let command = simple.trim().replace(/^\(+\s*/, '');
  for (let i = 0; i < MAX_WRAPPERS; i += 1) {
    const stripped = command.replace(WRAPPER, '');
    if (stripped === command) break;
    command = stripped;
  }
  return command;
}

/**
 * The test runner `command` runs, or undefined when it runs none. `extraPatterns` (from the plugin's
 * options) are matched against each simple command as it is, and count as `custom`.
 */
export function recognizeTestRun(command: string, extraPatterns: readonly RegExp[] = []): TestRunner | undefined {
  for (const simple of command.split(COMMAND_SEPARATOR)) {
    const bare = bareCommand(simple);
    if (bare === '') continue;
    for (const [runner, pattern] of RUNNER_PATTERNS) if (pattern.test(bare)) return runner;
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
