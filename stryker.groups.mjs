/**
 * The groups `npm run mutate` runs: the files each mutates and the test files (names under
 * tests/unit/ or tests/integration/, a prefix) that aim at them, less those matching `skip` (path
 * patterns), and `build` for a group whose unit tests start a built child. See stryker.config.mjs.
 */
export const GROUPS = {
  rules: { mutate: ['src/core/rules.ts', 'src/core/pooled-sheet.ts'], tests: ['rules', 'tracking', 'state', 'pooled-sheet'] },
  'write-buffer': { mutate: ['src/core/tracking/write-buffer.ts'], tests: ['write-buffer', 'tracking', 'state'] },
  // The scoring modules; every recommend test but the evaluation sets (recommend-eval, recommend-eval-ceiling, recommend-quality:
  // minutes per run, so each mutant would time out rather than be judged) and the tests that spawn
  // the CLI or open stores (recommend-tool, recommend-apply, recommend-backtest: its CLI test needs
  // dist/, which the sandbox lacks; recommend-tracked: recording its history takes seconds, and it
  // covers nearly every mutant). recommend-mut-*.test.ts ask the same questions of plain records.
  recommend: {
    mutate: [
      'src/core/report/recommend.ts',
      'src/core/report/recommend-signals.ts',
      'src/core/report/recommend-math.ts',
      'src/core/report/recommend-kinds.ts',
      'src/core/report/recommend-evidence.ts',
      'src/core/report/recommend-overclaim.ts',
      'src/core/report/recommend-why.ts',
    ],
    tests: ['recommend'],
    skip: ['/recommend-(eval|eval-ceiling|quality|tool|apply|backtest|tracked)\\.test\\.ts$'],
  },
  masking: { mutate: ['src/core/secrets/**/*.ts'], tests: ['masking'] },
  outcomes: {
    mutate: [
      'src/core/outcomes/counters.ts',
      'src/core/outcomes/test-runs.ts',
      'src/core/outcomes/undo.ts',
      'src/core/outcomes/git-signals.ts',
      'src/core/outcomes/git-outcomes.ts',
      'src/core/outcomes/grades.ts',
      'src/core/projects/head-files.ts',
    ],
    tests: ['outcome', 'git-signals', 'user-grades', 'head-files'],
  },
  // The plugin's side of masking: which files hold secrets (the scan, its rescans, the other projects' kept listings),
  // what an agent may not read, and the masking of tool outputs, stored text, messages and the system prompt.
  // `build`: stored-text.test.ts follows a commit message through the built history-import child.
  guards: { mutate: ['src/opencode/guards/*.ts'], tests: ['project-secrets', 'env-folders', 'env-guard', 'stored-text', 'red-team-secrets', 'guards-mut'], build: true },
  search: { mutate: ['src/core/search/**/*.ts'], tests: ['prior-art', 'relevance'] },
  // `build`: stored-form.test.ts salvages a file through the built child (dist/core/store/verify-child.js).
  'stored-form': { mutate: ['src/core/store/stored-form.ts', 'src/core/iso-time.ts'], tests: ['stored-form', 'stored-usage', 'stored-events', 'iso-time'], build: true },
  tracking: {
    mutate: [
      'src/core/tracking/*.ts',
      '!src/core/tracking/{write-buffer,status-export,context}.ts',
      'src/core/integrity/bug-evidence.ts',
      'src/core/outcomes/task-kind.ts',
    ],
    tests: ['tracking', 'state', 'host-call-ids', 'outcome-tracking', 'task-kind', 'user-grades'],
  },
  store: {
    mutate: [
      'src/core/store/store.ts',
      'src/core/store/apply-batch.ts',
      'src/core/store/grade-pairs.ts',
      'src/core/store/batch-room.ts',
      'src/core/store/transfer.ts',
      'src/core/store/import-sheets.ts',
      'src/core/store/replay.ts',
      'src/core/store/usage-rewrite.ts',
      'src/core/store/verify.ts',
      'src/core/store/late-write.ts',
      'src/contract/git-signal-cache.ts',
    ],
    tests: ['store', 'transfer', 'import', 'reliability-map', 'state', 'user-grades', 'grade-pairs', 'host-call-ids', 'verified-chain', 'spill-late-marker'],
    // Less the stored-form group's tests (the `store` prefix finds them; stored-text waits seconds for a
    // child import) and the integration tests (import-bounds, transfer): they start the built CLI
    // several times per mutant, which made transfer.ts alone take hours; the unit tests check the same code.
    skip: ['/stored-(form|text|usage|events)\\.test\\.ts$', '/tests/integration/'],
  },
  credit: {
    mutate: ['src/core/integrity/commit-credit.ts', 'src/core/integrity/commit-content.ts', 'src/core/integrity/credited-changes.ts', 'src/core/backfill/replay-ledger.ts', 'src/core/backfill/commit-witness.ts'],
    tests: ['integrity', 'commit-content-credit', 'backfill-replay-credit', 'commit-witness', 'backfill-commit-witness', 'backfilled-commits'],
  },
  answers: { mutate: ['src/core/answers/*.ts', 'src/core/report/report.ts', 'src/core/report/periods.ts'], tests: ['answers', 'report', 'transfer-roundtrip', 'prior-art'] },
};
