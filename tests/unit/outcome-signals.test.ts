/** Pure outcome signals: test-command recognizer, red/green recovery, undone turns, /grade arguments. */
import { describe, expect, it } from '@jest/globals';
import { parseGradeArguments } from '../../src/core/outcomes/grade-command.js';
import { compileTestPatterns, INITIAL_TEST_STATE, nextTestState, recognizeTestRun } from '../../src/core/outcomes/test-runs.js';
import type { TestState } from '../../src/core/outcomes/test-runs.js';
import { undoneBySetup, undoneTurns } from '../../src/core/outcomes/undo.js';

describe('recognizing a test run', () => {
  it.each([
    ['npm test', 'npm'],
    ['npm t', 'npm'],
    ['npm run test', 'npm'],
    ['npm run test:unit -- --watch=false', 'npm'],
    ['npm run-script test', 'npm'],
    ['pnpm test', 'pnpm'],
    ['pnpm run test:e2e', 'pnpm'],
    ['yarn test', 'yarn'],
    ['yarn run test', 'yarn'],
    ['bun test', 'bun'],
    ['bun run test', 'bun'],
    ['npx jest src/a.test.ts', 'jest'],
    ['jest', 'jest'],
    ['./node_modules/.bin/jest --ci', 'jest'],
    ['node_modules/.bin/jest', 'jest'],
    ['npx vitest run', 'vitest'],
    ['vitest', 'vitest'],
    ['npx mocha test/', 'mocha'],
    ['pytest -q', 'pytest'],
    ['python -m pytest tests/', 'pytest'],
    ['python3 -m pytest', 'pytest'],
    ['uv run pytest', 'pytest'],
    ['poetry run pytest -x', 'pytest'],
    ['py.test', 'pytest'],
    ['go test ./...', 'go'],
    ['cargo test', 'cargo'],
    ['cargo test --release', 'cargo'],
    ['cargo nextest run', 'cargo'],
    ['mvn test', 'maven'],
    ['mvn -q clean verify', 'maven'],
    ['./mvnw test', 'maven'],
    ['gradle test', 'gradle'],
    ['./gradlew test', 'gradle'],
    ['./gradlew :app:test', 'gradle'],
    ['./gradlew clean check', 'gradle'],
    ['rspec', 'rspec'],
    ['bundle exec rspec spec/models', 'rspec'],
    ['bundle exec rake spec', 'rspec'],
    ['vendor/bin/phpunit', 'phpunit'],
    ['phpunit --filter X', 'phpunit'],
    ['php artisan test', 'phpunit'],
    ['dotnet test', 'dotnet'],
    ['cd app && npm test', 'npm'],
    ['npm run build && npm test', 'npm'],
    ['npm run lint; pytest', 'pytest'],
    ['CI=1 npm test', 'npm'],
    ['NODE_ENV=test FOO=bar npx jest', 'jest'],
    ['time go test ./...', 'go'],
    ['env CI=true cargo test', 'cargo'],
    ['(cd sub && go test ./...)', 'go'],
    ['pytest 2>&1 | tail -20', 'pytest'],
    ['go test ./... || true', 'go'],
    ['/usr/local/go/bin/go test ./...', 'go'],
    ['/usr/bin/npm test', 'npm'],
    ['~/.cargo/bin/cargo test', 'cargo'],
    ['/opt/gradle/bin/gradle check', 'gradle'],
    ['/usr/bin/dotnet test', 'dotnet'],
  ])('%s runs %s', (command, runner) => {
    expect(recognizeTestRun(command)).toBe(runner);
  });

  it.each([
    'npm install',
    'npm run build',
    'npm run testing-tools',
    'npm testx',
    'npm ci',
    'echo npm test',
    'echo "run pytest next"',
    'grep -r pytest .',
    'cat jest.config.js',
    'ls test',
    'git commit -m "test: add tests"',
    'go build ./...',
    'go vet ./...',
    'cargo build',
    'cargo testing',
    'mvn package',
    'gradle build',
    'dotnet build',
    'python script.py',
    'pip install pytest',
    'rspecial',
    'npx jester',
    'mytest',
    'gotest',
    '',
    '   ',
  ])('%j runs no test suite', (command) => {
    expect(recognizeTestRun(command)).toBeUndefined();
  });

  // Each runner: extra spaces, a path or wrapper before it, script names with ':' and '-', and the
  // near misses (a longer word, the command only echoed) that are no test run.
  it.each([
    ['npm  test', 'npm'],
    ['npm run  test', 'npm'],
    ['npm run test:unit:ci', 'npm'],
    ['npm run test:e2e-ci', 'npm'],
    ['pnpm  test', 'pnpm'],
    ['pnpm test:unit:ci', 'pnpm'],
    ['pnpm run test:a-b', 'pnpm'],
    ['yarn  test', 'yarn'],
    ['yarn test:unit:ci', 'yarn'],
    ['yarn test:a-b', 'yarn'],
    ['bun  test', 'bun'],
    ['bun test:a:b', 'bun'],
    ['bun test:a-b', 'bun'],
    ['bin/mocha', 'mocha'],
    ['.venv/bin/pytest', 'pytest'],
    ['.venv/bin/py.test', 'pytest'],
    ['python -m pytest', 'pytest'],
    ['uv  run pytest', 'pytest'],
    ['go  test', 'go'],
    ['cargo  test', 'cargo'],
    ['cargo nextest  run', 'cargo'],
    ['mvnw test', 'maven'],
    ['mvn  test', 'maven'],
    ['gradle app:test', 'gradle'],
    ['./gradlew :app:sub-mod:test', 'gradle'],
    ['./gradlew  test', 'gradle'],
    ['bundle  exec rspec', 'rspec'],
    ['rake spec', 'rspec'],
    ['artisan test', 'phpunit'],
    ['php  artisan test', 'phpunit'],
    ['dotnet  test', 'dotnet'],
    ['pnpx jest', 'jest'],
    ['npx  jest', 'jest'],
    ['bunx vitest', 'vitest'],
    ['command go test', 'go'],
    ['exec pytest', 'pytest'],
    ['time  go test', 'go'],
    ['nice -n10 cargo test', 'cargo'],
    ['env -i CI=1 npm test', 'npm'],
    ['yarn exec jest', 'jest'],
    ['yarn  exec jest', 'jest'],
    ['pnpm exec vitest', 'vitest'],
    ['CI= npm test', 'npm'],
    ['A1=x npm test', 'npm'],
    ['_X=1 npm test', 'npm'],
    ['x=1 npm test', 'npm'],
    ['( go test ./...)', 'go'],
    ['((go test ./...))', 'go'],
    ['npm run lint\nnpm test', 'npm'],
    ['npm run lint|| go test', 'go'],
    ['npm run-script  test', 'npm'],
    ['pnpm run  test', 'pnpm'],
    ['yarn run  test', 'yarn'],
    ['bun run  test', 'bun'],
    ['./node_modules/.bin/vitest run', 'vitest'],
    ['python  -m pytest', 'pytest'],
    ['python -m  pytest', 'pytest'],
    ['poetry  run pytest', 'pytest'],
    ['mvn -q  test', 'maven'],
    ['./gradlew clean  test', 'gradle'],
    ['bundle exec  rspec', 'rspec'],
    ['rake  spec', 'rspec'],
    ['artisan  test', 'phpunit'],
    ['php artisan test --filter UserTest', 'phpunit'],
    ['nice  -n10 cargo test', 'cargo'],
    ['pnpm  exec vitest', 'vitest'],
    ['pnpm exec  vitest', 'vitest'],
    ['yarn exec  jest', 'jest'],
    ['CI=1  npm test', 'npm'],
  ])('%j runs %s (spacing, paths, wrappers)', (command, runner) => {
    expect(recognizeTestRun(command)).toBe(runner);
  });

  it.each([
    'npm test:',
    'pnpm testx',
    'yarn testx',
    'bun testx',
    'vitestx',
    'mochax',
    'pytestx',
    'go testfoo',
    'cargo nextest runx',
    'mvn test-compile',
    'gradle testClasses',
    'gradle checkstyle',
    'rake specs',
    'phpunitx',
    'dotnet testx',
    'echo pnpm test',
    'echo yarn test',
    'echo bun test',
    'echo jest',
    'echo vitest',
    'echo mocha',
    'echo pytest',
    'echo go test',
    'echo cargo test',
    'echo mvn test',
    'echo gradle test',
    'echo rspec',
    'echo rake spec',
    'echo phpunit',
    'echo dotnet test',
    '1X=1 npm test',
    'python -m pip install pytest',
    'uv add --dev pytest',
    'poetry add --group dev pytest',
    'bundle add rspec',
  ])('%j runs no test suite (a near miss)', (command) => {
    expect(recognizeTestRun(command)).toBeUndefined();
  });

  it('counts extra patterns from the options as custom runs, and only those', () => {
    const { patterns, invalid } = compileTestPatterns(['^make check\\b', '^tox(\\s|$)']);
    expect(invalid).toEqual([]);
    expect(recognizeTestRun('make check', patterns)).toBe('custom');
    expect(recognizeTestRun('CI=1 tox -e py311', patterns)).toBe('custom');
    expect(recognizeTestRun('make build', patterns)).toBeUndefined();
    expect(recognizeTestRun('make check')).toBeUndefined();
    expect(recognizeTestRun('npm test', patterns)).toBe('npm');
  });

  it('reports an invalid extra pattern instead of throwing', () => {
    expect(compileTestPatterns(['(unclosed', 'ok'])).toEqual({ patterns: [/ok/], invalid: ['(unclosed'] });
  });
});

describe('a session ending green after being red', () => {
  const run = (results: boolean[]) => {
    let state: TestState = INITIAL_TEST_STATE;
    let recoveries = 0;
    for (const passed of results) {
      const next = nextTestState(state, passed);
      state = next.state;
      recoveries += next.recoveryDelta;
    }
    return { state, recoveries };
  };
  it.each([
    [[], 0, { red: false, recovered: false }],
    [[true], 0, { red: false, recovered: false }],
    [[true, true], 0, { red: false, recovered: false }],
    [[false], 0, { red: true, recovered: false }],
    [[false, false], 0, { red: true, recovered: false }],
    [[false, true], 1, { red: false, recovered: true }],
    [[false, true, true], 1, { red: false, recovered: true }],
    [[false, false, true], 1, { red: false, recovered: true }],
    [[false, true, false], 0, { red: true, recovered: false }],
    [[false, true, false, true], 1, { red: false, recovered: true }],
    [[true, false, true, false, false, true], 1, { red: false, recovered: true }],
  ])('runs %j: %i recovery, state %j', (results, recoveries, state) => {
    expect(run(results)).toEqual({ recoveries, state });
  });
  it('changes the count by exactly one step at a time', () => {
    expect(nextTestState({ red: true, recovered: false }, true).recoveryDelta).toBe(1);
    expect(nextTestState({ red: false, recovered: true }, false).recoveryDelta).toBe(-1);
    expect(nextTestState({ red: true, recovered: true }, true)).toEqual({ state: { red: false, recovered: true }, recoveryDelta: 0 });
    expect(nextTestState({ red: false, recovered: false }, false).recoveryDelta).toBe(0);
  });
});

describe('turns an undo takes back', () => {
  const turn = (messageId: string, agent = 'build', model = 'm') => ({ messageId, agent, model, project: '/p' });
  const turns = [turn('msg_010'), turn('msg_020'), turn('msg_030', 'plan')];
  it.each([
    ['msg_005', ['msg_010', 'msg_020', 'msg_030']],
    ['msg_010', ['msg_010', 'msg_020', 'msg_030']],
    ['msg_015', ['msg_010', 'msg_020', 'msg_030']],
    ['msg_019', ['msg_010', 'msg_020', 'msg_030']],
    ['msg_020', ['msg_020', 'msg_030']],
    ['msg_025', ['msg_020', 'msg_030']],
    ['msg_030', ['msg_030']],
    ['msg_099', ['msg_030']],
  ])('a revert to %s undoes %j', (point, want) => {
    expect(undoneTurns(turns, point).map((t) => t.messageId)).toEqual(want);
  });
  it('undoes nothing in a session without finished turns', () => {
    expect(undoneTurns([], 'msg_001')).toEqual([]);
  });
  it('counts undone turns against each setup that worked them', () => {
    const counted = [...undoneBySetup([turn('a'), turn('b'), turn('c', 'plan'), turn('d', 'build', 'other')]).values()].map((e) => [e.turn.agent, e.turn.model, e.count]);
    expect(counted).toEqual([['build', 'm', 2], ['plan', 'm', 1], ['build', 'other', 1]]);
  });
});

describe('/grade arguments', () => {
  it.each([
    ['5 good work', { grade: '5', note: 'good work' }],
    ['5', { grade: '5', note: '' }],
    ['  -1   broke   it ', { grade: '-1', note: 'broke it' }],
    ['2 1a2b3c4', { grade: '2', commit: '1a2b3c4', note: '' }],
    ['2 1A2B3C4D clean fix', { grade: '2', commit: '1a2b3c4d', note: 'clean fix' }],
    ['2 abcdef1 x', { grade: '2', commit: 'abcdef1', note: 'x' }],
    ['2 abcdefa is not a hash without a digit', { grade: '2', note: 'abcdefa is not a hash without a digit' }],
    ['2 1a2b3c is too short', { grade: '2', note: '1a2b3c is too short' }],
    ['x y', { grade: 'x', note: 'y' }],
    ['"5 good work, thanks"', { grade: '5', note: 'good work, thanks' }],
    ["'2 1a2b3c4 ok'", { grade: '2', commit: '1a2b3c4', note: 'ok' }],
    ['"5 unbalanced', { grade: '"5', note: 'unbalanced' }],
    ['"', { grade: '"', note: '' }],
    ['5 "quoted note"', { grade: '5', note: '"quoted note"' }],
  ])('%j reads as %j', (text, want) => {
    expect(parseGradeArguments(text)).toEqual(want);
  });
  it('asks for a grade when none was given', () => {
    expect(() => parseGradeArguments('   ')).toThrow(/give a grade: \/grade N \[COMMIT\] \[note\]/);
  });
});
