/** The `agent-tracker prior-art` command (the built CLI) and the `prior-art` agent tool, on real stores. */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { ToolContext } from '@opencode-ai/plugin';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import { Store } from '../../src/core/store/store.js';
import { priorArtTools } from '../../src/opencode/tools/prior-art.js';
import { mutationOf, profile } from '../helpers/prior-art-store.js';
import type { Seed } from '../helpers/prior-art-store.js';
import { cliJson, makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { localPriorArt } from '../../src/opencode/prior-art-answer.js';
import { silentLogger } from '../../src/core/logger.js';

const MINE = '/projects/mine';
const OTHER = '/projects/other';
const NOW = '2025-01-01T00:00:00.000Z';

let sandbox: Sandbox | undefined;
let tracker: TempTracker | undefined;
afterEach(() => {
  if (sandbox) removeSandbox(sandbox);
  tracker?.dispose();
  sandbox = undefined;
  tracker = undefined;
});

function seedSandbox(seeds: Seed[]): Sandbox {
  const box = makeSandbox('agent-tracker-prior-art-cli-');
  const store = Store.open({ path: box.dbPath, maxDatabaseSize: 64 * 1024 * 1024, indexer: termIndexer });
  store.applyBatch(seeds.map(mutationOf), DEFAULT_RULES, NOW);
  store.applyBatch([{ table: 'projects', key: MINE, value: profile(MINE, 'CLI') }], DEFAULT_RULES, NOW);
  store.close();
  return box;
}

interface PriorArtJson {
  positivePatterns: Record<string, unknown>[];
  crossScopePatterns: Record<string, unknown>[];
  mistakes: Record<string, unknown>[];
}

describe('agent-tracker prior-art', () => {
  const seeds: Seed[] = [
    { kind: 'retrospective', id: 'r', task: 'Add rate limiting to login', userGrade: 5, userNote: 'clean sliding window', project: MINE },
    { kind: 'activity', id: 'a', task: 'Rate limiting for the upload endpoint', project: OTHER },
    { kind: 'retrospective', id: 'm', task: 'Rate limiting with a global lock', userGrade: -1, userNote: 'deadlocked', project: OTHER },
  ];

  it('prints the JSON contract, with the scope taken from --project', () => {
    sandbox = seedSandbox(seeds);
    const result = cliJson<PriorArtJson>(sandbox, ['prior-art', 'rate limiting', '--project', MINE]);
    expect(Object.keys(result)).toEqual(['positivePatterns', 'crossScopePatterns', 'mistakes', 'similarProjects', 'gitLogMatches']);
    expect(result.positivePatterns).toEqual([
      expect.objectContaining({ source: 'retrospective', task: 'Add rate limiting to login', grade: 5, agentId: 'build', scope: 'CLI', projectPath: MINE, relevanceScore: 1 }),
    ]);
    expect(Object.keys(result.positivePatterns[0] ?? {}).sort()).toEqual(
      ['agentId', 'grade', 'gradedBy', 'notes', 'projectPath', 'relevanceScore', 'scope', 'source', 'task', 'timestamp'],
    );
    expect(result.crossScopePatterns.map((m) => [m.source, m.scope])).toEqual([['activity', OTHER]]);
    expect(result.mistakes.map((m) => [m.task, m.grade])).toEqual([['Rate limiting with a global lock', -1]]);
  });

  it('takes --scope and --max, and prints markdown without --json', () => {
    sandbox = seedSandbox(seeds);
    const scoped = cliJson<PriorArtJson>(sandbox, ['prior-art', 'rate', 'limiting', '--scope', OTHER, '--max', '1']);
    expect(scoped.positivePatterns.map((m) => m.source)).toEqual(['activity']);
    const text = runCli(sandbox, ['prior-art', 'rate limiting', '--project', MINE]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('### Prior Art: Positive Patterns');
    expect(text.stdout).toContain('### Prior Art: Mistakes to Avoid');
    expect(text.stdout).toContain('deadlocked');
  });

  it('fails with one clear line on a missing text or a bad --max', () => {
    sandbox = seedSandbox([]);
    const missing = runCli(sandbox, ['prior-art']);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('expects the task');
    const bad = runCli(sandbox, ['prior-art', 'x y z', '--max', 'lots']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--max expects a whole number');
    const zero = runCli(sandbox, ['prior-art', 'words here', '--max', '0']);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain('1 to 50');
  });

  it('refuses an unknown --agent or --scope with one clear line instead of an answer about nothing', () => {
    sandbox = seedSandbox(seeds);
    const agent = runCli(sandbox, ['prior-art', 'rate limiting', '--project', MINE, '--agent', 'nobody']);
    expect([agent.code, agent.stdout]).toEqual([1, '']);
    expect(agent.stderr.trim().split('\n')).toHaveLength(1);
    expect(agent.stderr).toContain('no agent named "nobody" has been tracked yet; check the name with: agent-tracker status');
    const scope = runCli(sandbox, ['prior-art', 'rate limiting', '--project', MINE, '--scope', 'nowhere']);
    expect([scope.code, scope.stdout]).toEqual([1, '']);
    expect(scope.stderr.trim().split('\n')).toHaveLength(1);
    expect(scope.stderr).toContain('no project has the scope "nowhere"; pass one of: CLI, a project path');
  });
});

describe('the prior-art tool', () => {
  const context = { sessionID: 's1', messageID: 'm1', agent: 'build', directory: MINE, worktree: MINE, abort: new AbortController().signal } as unknown as ToolContext;

  it('finds journal entries written through the tracking service, as markdown', async () => {
    tracker = tempTracker({}, MINE);
    tracker.service.logActivity({ agent: 'plan', project: MINE, task: 'Design the export pipeline', decisions: 'stream NDJSON, never buffer' });
    expect(tracker.service.flush('test').ok).toBe(true);
    const tools = priorArtTools({ service: tracker.service, logger: silentLogger, project: MINE, renderStatus: () => '', priorArt: localPriorArt(tracker.service.store, silentLogger) });
    const text = await tools['prior-art']!.execute({ task: 'export pipeline' }, context);
    expect(text).toContain('### Prior Art: Positive Patterns');
    expect(text).toContain('- ungraded activity; agent plan, project mine, ');
    expect(text).toContain('  > task: Design the export pipeline');
    expect(text).toContain('Decisions: stream NDJSON, never buffer');
  });

  it('refuses an agent never tracked, but not the calling agent naming itself', async () => {
    tracker = tempTracker({}, MINE);
    tracker.service.logActivity({ agent: 'plan', project: MINE, task: 'Design the export pipeline' });
    expect(tracker.service.flush('test').ok).toBe(true);
    const tools = priorArtTools({ service: tracker.service, logger: silentLogger, project: MINE, renderStatus: () => '', priorArt: localPriorArt(tracker.service.store, silentLogger) });
    await expect(tools['prior-art']!.execute({ task: 'export pipeline', agent: 'nobody' }, context)).rejects.toThrow('no agent named "nobody" has been tracked yet');
    // The caller (build) has recorded nothing yet: nothing of its own, and plan's work here is not cross-scope.
    const own = await tools['prior-art']!.execute({ task: 'export pipeline', agent: 'build' }, context);
    expect(own).not.toContain('Cross-Scope');
    expect(own).not.toContain('Design the export pipeline');
  });

  it('rejects an empty task with a clear error', async () => {
    tracker = tempTracker({}, MINE);
    const tools = priorArtTools({ service: tracker.service, logger: silentLogger, project: MINE, renderStatus: () => '', priorArt: localPriorArt(tracker.service.store, silentLogger) });
    await expect(tools['prior-art']!.execute({ task: '   ' }, context)).rejects.toThrow('the task description is empty');
  });
});
