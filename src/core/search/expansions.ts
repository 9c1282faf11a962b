/**
 * Query expansion: the abbreviations and synonyms developers use for one another, so "auth" finds
 * "authentication" and "db" finds "database". Applied to queries only (the index holds the words
 * entries really used) and weighed below the query's own words (EXPANSION_WEIGHT), so an entry in
 * the query's own words still ranks first.
 *
 * The table is kept small on purpose: every pair in it must mean the same thing in almost every
 * developer's sentence. Ambiguous short forms get no entry ("ts" is TypeScript or a timestamp,
 * "res" a response or a resource).
 */
import { analyze } from './tokenizer.js';

/** The weight of an expansion term against 1 for a word the query itself used. */
export const EXPANSION_WEIGHT = 0.5;

/**
 * Abbreviation → what it stands for. A query with the abbreviation also searches each long form;
 * a query with a one-word long form also searches the abbreviation ("database" finds "db").
 */
export const ABBREVIATIONS: readonly (readonly [string, readonly string[]])[] = [
  ['a11y', ['accessibility']],
  ['admin', ['administrator', 'administration']],
  ['app', ['application']],
  ['arg', ['argument']],
  ['args', ['arguments']],
  ['async', ['asynchronous']],
  ['auth', ['authentication', 'authorization']],
  ['authn', ['authentication']],
  ['authz', ['authorization']],
  ['cert', ['certificate']],
  ['certs', ['certificates']],
  ['cfg', ['configuration', 'config']],
  ['ci', ['continuous integration']],
  ['config', ['configuration']],
  ['creds', ['credentials']],
  ['db', ['database']],
  ['dedup', ['deduplicate', 'duplicate']],
  ['dedupe', ['deduplicate', 'duplicate']],
  ['dep', ['dependency']],
  ['deps', ['dependencies']],
  ['dev', ['development']],
  ['dir', ['directory']],
  ['doc', ['documentation']],
  ['docs', ['documentation']],
  ['env', ['environment']],
  ['envs', ['environments']],
  ['err', ['error']],
  ['fn', ['function']],
  ['func', ['function']],
  ['i18n', ['internationalization', 'localization', 'translation']],
  ['img', ['image']],
  ['impl', ['implementation']],
  ['info', ['information']],
  ['init', ['initialize', 'initialization']],
  ['js', ['javascript']],
  ['k8s', ['kubernetes']],
  ['l10n', ['localization', 'translation']],
  ['lib', ['library']],
  ['msg', ['message']],
  ['nav', ['navigation']],
  ['param', ['parameter']],
  ['params', ['parameters']],
  ['perf', ['performance']],
  ['perms', ['permissions']],
  ['pkg', ['package']],
  ['pr', ['pull request']],
  ['prod', ['production']],
  ['py', ['python']],
  ['regex', ['regular expression']],
  ['repo', ['repository']],
  ['repos', ['repositories']],
  ['req', ['request']],
  ['spec', ['specification']],
  ['temp', ['temporary']],
  ['tmp', ['temporary']],
  ['tz', ['timezone']],
  ['ui', ['user interface']],
  ['ux', ['user experience']],
  ['vars', ['variables']],
  ['ws', ['websocket']],
];

/**
 * Words that stand for one another in task descriptions: each member of a group finds the others.
 * One word each: a phrase would lose its short words to the stop list ("sign in" would be "sign").
 */
export const SYNONYMS: readonly (readonly string[])[] = [
  ['bug', 'defect'],
  ['delete', 'remove'],
  ['email', 'mail'],
  ['error', 'exception'],
  ['fast', 'slow', 'speed', 'performance', 'latency'],
  ['image', 'picture', 'photo'],
  ['launch', 'startup', 'boot'],
  ['login', 'signin'],
  ['logout', 'signout'],
  ['signup', 'register', 'registration'],
  ['translation', 'localization', 'internationalization'],
];

/** The terms of a phrase, analyzed as an entry would be. */
function termsOf(phrase: string): string[] {
  const terms: string[] = [];
  analyze(phrase, (term) => terms.push(term));
  return terms;
}

function addExpansion(table: Map<string, string[][]>, from: string, to: string[]): void {
  const list = table.get(from) ?? [];
  if (!list.some((terms) => terms.join(' ') === to.join(' '))) list.push(to);
  table.set(from, list);
}

/**
 * The expansions, keyed by the analyzed term they apply to (so "configs" finds them through its
 * stem), each a list of phrases as analyzed terms.
 */
export function buildExpansionTable(
  abbreviations: typeof ABBREVIATIONS = ABBREVIATIONS,
  synonyms: typeof SYNONYMS = SYNONYMS,
): ReadonlyMap<string, readonly (readonly string[])[]> {
  const table = new Map<string, string[][]>();
  for (const [short, longs] of abbreviations) {
    const [shortTerm, ...more] = termsOf(short);
    if (shortTerm === undefined || more.length > 0) continue;
    for (const long of longs) {
      const longTerms = termsOf(long);
      if (longTerms.length === 0) continue;
      addExpansion(table, shortTerm, longTerms);
      const [single, ...rest] = longTerms;
      if (single !== undefined && rest.length === 0) addExpansion(table, single, [shortTerm]);
    }
  }
  for (const group of synonyms) {
    const phrases = group.map(termsOf).filter((terms) => terms.length > 0);
    for (const from of phrases) {
      const [single, ...rest] = from;
      if (single === undefined || rest.length > 0) continue;
      for (const to of phrases) if (to.join(' ') !== single) addExpansion(table, single, to);
    }
  }
  return table;
}

let defaultTable: ReadonlyMap<string, readonly (readonly string[])[]> | undefined;

/** The phrases (as terms) a query term also searches for; empty when the table has none. */
export function expansionsOf(term: string): readonly (readonly string[])[] {
  defaultTable ??= buildExpansionTable();
  return defaultTable.get(term) ?? [];
}
