/**
 * The kind of task a turn was: from what the turn did (the files it edited, its commit messages)
 * first, then the user's prompt. Pure and table-driven, so setups can be compared on the same kind of
 * work (the strong model is often handed the hard bugs, the cheap one the docs).
 */

import type { OutcomeCounterName } from '../../contract/counters.js';

export const TASK_KINDS = ['bug fix', 'feature', 'refactor', 'tests', 'docs', 'config', 'question/other'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];

/** The usage counter that counts the turns of each kind (so they are stored, exported and imported with the rest). */
export const TASK_KIND_COUNTERS: Readonly<Record<TaskKind, OutcomeCounterName>> = {
  'bug fix': 'turnsBugFix',
  feature: 'turnsFeature',
  refactor: 'turnsRefactor',
  tests: 'turnsTests',
  docs: 'turnsDocs',
  config: 'turnsConfig',
  'question/other': 'turnsOther',
};

/** What is known of a turn when it ends. */
export interface TurnFacts {
  /** The user's prompt (possibly truncated). */
  prompt: string;
  /** Paths the turn edited or wrote. */
  filesEdited?: readonly string[];
  /** Messages of the commits the turn made. */
  commitMessages?: readonly string[];
}

/** Files whose kind is plain from the path alone. Checked in this order. */
const FILE_KINDS: readonly { kind: TaskKind; pattern: RegExp }[] = [
  { kind: 'tests', pattern: /(^|\/)(tests?|__tests__|spec|e2e)\/|\.(test|spec)\.[cm]?[jt]sx?$|_test\.(go|py|rs)$|(^|\/)test_[^/]+\.py$/i },
  { kind: 'docs', pattern: /(^|\/)docs?\/|\.(md|mdx|rst|adoc|txt)$|(^|\/)(README|CHANGELOG|LICENSE)[^/]*$/i },
  {
    kind: 'config',
    pattern:
      /(^|\/)(package\.json|package-lock\.json|tsconfig[^/]*\.json|opencode\.jsonc?|Dockerfile|docker-compose[^/]*\.ya?ml|Makefile|Cargo\.toml|go\.mod|pyproject\.toml|requirements[^/]*\.txt|\.env\.example|\.gitignore|\.eslintrc[^/]*|eslint\.config\.[cm]?js|jest\.config\.[cm]?[jt]s)$|(^|\/)\.github\/|\.(ya?ml|toml|ini)$/i,
  },
];

/** Conventional-commit prefixes, the clearest thing a commit says about its kind. */
const COMMIT_PREFIXES: readonly { kind: TaskKind; pattern: RegExp }[] = [
  { kind: 'bug fix', pattern: /^(fix|hotfix|bugfix)(\(.+\))?!?:/i },
  { kind: 'feature', pattern: /^feat(\(.+\))?!?:/i },
  { kind: 'refactor', pattern: /^(refactor|perf|style)(\(.+\))?!?:/i },
  { kind: 'tests', pattern: /^tests?(\(.+\))?!?:/i },
  { kind: 'docs', pattern: /^docs?(\(.+\))?!?:/i },
  { kind: 'config', pattern: /^(chore|build|ci|deps)(\(.+\))?!?:/i },
];

/** Words in a prompt, first match wins (so "fix the failing test" is a bug fix). */
const PROMPT_WORDS: readonly { kind: TaskKind; pattern: RegExp }[] = [
  { kind: 'bug fix', pattern: /\b(bugs?|fix(es|ed|ing)?|broken|crash(es|ed|ing)?|errors?|exceptions?|fail(s|ed|ing|ure)?|regressions?|wrong|doesn'?t work|not working)\b/i },
  { kind: 'refactor', pattern: /\b(refactor(ing)?|rename|clean ?up|simplify|extract|restructure|reorgani[sz]e|split|dedupe|tidy)\b/i },
  { kind: 'tests', pattern: /\b(tests?|specs?|coverage|unit tests?|e2e)\b/i },
  { kind: 'docs', pattern: /\b(docs?|documentation|document|readme|changelog|comments?|docstrings?)\b/i },
  { kind: 'config', pattern: /\b(config(uration)?|settings|ci|pipeline|dependenc(y|ies)|upgrade|bump|lint(er)?|eslint|tsconfig|docker|deploy(ment)?|install)\b/i },
  { kind: 'feature', pattern: /\b(add|implement|create|build|support|introduce|new|feature|endpoint|page|command|option)\b/i },
];

/** A prompt that asks rather than tells. */
const QUESTION = /\?\s*$|^(what|how|why|where|which|who|when|can|could|does|do|is|are|explain|describe|tell me|show me)\b/i;

/** The one kind every item of `items` has by `table`, or null when they differ or none matches. */
function sharedKind(items: readonly string[], table: readonly { kind: TaskKind; pattern: RegExp }[]): TaskKind | null {
  let shared: TaskKind | null = null;
  for (const item of items) {
    const kind = table.find(({ pattern }) => pattern.test(item))?.kind ?? null;
    if (kind === null || (shared !== null && kind !== shared)) return null;
    shared = kind;
  }
  return shared;
}

/** The first kind whose pattern matches `text`, or null. */
function firstKind(text: string, table: readonly { kind: TaskKind; pattern: RegExp }[]): TaskKind | null {
  return table.find(({ pattern }) => pattern.test(text))?.kind ?? null;
}

/**
 * The turn's kind: edits that are all tests, all docs or all config say so; else the commits' shared
 * conventional prefix; else the prompt's words; a question that edited nothing is a question; a turn
 * that edited code with no telling word is a feature; anything else is question/other.
 */
export function classifyTaskKind(turn: TurnFacts): TaskKind {
  const files = turn.filesEdited ?? [];
  const byFiles = files.length > 0 ? sharedKind(files, FILE_KINDS) : null;
  if (byFiles) return byFiles;
  const messages = (turn.commitMessages ?? []).map((message) => message.trim()).filter((message) => message !== '');
  const byCommits = messages.length > 0 ? sharedKind(messages, COMMIT_PREFIXES) : null;
  if (byCommits) return byCommits;
  const prompt = turn.prompt.trim();
  const edited = files.length > 0 || messages.length > 0;
  if (!edited && QUESTION.test(prompt)) return 'question/other';
  const byPrompt = firstKind(prompt, PROMPT_WORDS);
  if (byPrompt) return byPrompt;
  return edited ? 'feature' : 'question/other';
}
