/**
 * The groups `npm run mutate` runs: the files each mutates and the unit test files (names under
 * tests/unit/, a prefix) that aim at them. See stryker.config.mjs.
 */
export const GROUPS = {
  rules: { mutate: ['src/core/rules.ts'], tests: ['rules', 'tracking', 'state'] },
  'write-buffer': { mutate: ['src/core/tracking/write-buffer.ts'], tests: ['write-buffer', 'tracking', 'state'] },
  recommend: { mutate: ['src/core/report/recommend.ts', 'src/core/report/recommend-signals.ts', 'src/core/report/recommend-math.ts'], tests: ['recommend'] },
  masking: { mutate: ['src/core/secrets/**/*.ts'], tests: ['masking'] },
  outcomes: {
    mutate: ['src/core/outcomes/counters.ts', 'src/core/outcomes/test-runs.ts', 'src/core/outcomes/undo.ts', 'src/core/outcomes/git-signals.ts', 'src/core/outcomes/grades.ts'],
    tests: ['outcome', 'git-signals', 'user-grades'],
  },
  query: { mutate: ['src/core/query/**/*.ts'], tests: ['prior-art', 'relevance'] },
  'stored-form': { mutate: ['src/core/store/stored-form.ts', 'src/core/iso-time.ts'], tests: ['stored-form'] },
  tracking: {
    mutate: ['src/core/tracking/service.ts', 'src/core/integrity/bug-evidence.ts', 'src/core/outcomes/task-kind.ts'],
    tests: ['tracking', 'state', 'host-call-ids', 'outcome-tracking', 'task-kind', 'user-grades'],
  },
  store: {
    mutate: ['src/core/store/store.ts', 'src/core/store/transfer.ts', 'src/core/store/replay.ts', 'src/contract/git-signal-cache.ts'],
    tests: ['store', 'transfer', 'import', 'reliability-map'],
  },
  credit: {
    mutate: ['src/core/integrity/commit-credit.ts', 'src/core/integrity/commit-content.ts', 'src/core/integrity/credited-changes.ts', 'src/core/backfill/replay-ledger.ts'],
    tests: ['integrity', 'commit-content-credit', 'backfill-replay-credit'],
  },
  answers: { mutate: ['src/core/answers/*.ts', 'src/core/report/report.ts', 'src/core/report/periods.ts'], tests: ['report', 'transfer-roundtrip', 'prior-art'] },
};
