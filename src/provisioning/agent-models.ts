/**
 * Writing a recommended model per agent into an OpenCode config's `"agent"` section
 * (`"agent": { "build": { "model": "provider/model" } }`; OpenCode 2: `"agents"`), with jsonc-parser edits so comments,
 * order and formatting elsewhere survive. Pure: text in, text and a list of changes out.
 */
import { editJsonc, isJsonObject, parseJsonc } from './opencode-json.js';

/** Where agents are configured: `"agent"` (OpenCode 1) or `"agents"` (OpenCode 2, which also reads `"provider/model"`). */
export type AgentSectionKey = 'agent' | 'agents';

/** One agent's model to set. */
export interface AgentModel {
  agent: string;
  model: string;
}

export interface AgentModelChange {
  agent: string;
  /** The model set before, if any. */
  from: string | null;
  to: string;
}

export interface AgentModelPlan {
  text: string;
  changes: AgentModelChange[];
}

/**
 * The config text with each agent's `model` set. An agent that already uses the model is left as it
 * is, so running this twice with the same answer changes nothing.
 * @throws Error when the text does not parse or `"agent"` (or an agent's entry) is not an object.
 */
export function planAgentModels(text: string, file: string, picks: readonly AgentModel[], key: AgentSectionKey = 'agent'): AgentModelPlan {
  const config = parseJsonc(text, file);
  if (!isJsonObject(config)) throw new Error(`${file} is not a JSON object`);
  const section = config[key];
  if (section !== undefined && !isJsonObject(section)) throw new Error(`"${key}" in ${file} is not an object`);
  let next = text;
  let hasSection = section !== undefined;
  const changes: AgentModelChange[] = [];
  for (const { agent, model } of picks) {
    const entry = section && Object.hasOwn(section, agent) ? section[agent] : undefined;
    if (entry !== undefined && !isJsonObject(entry)) throw new Error(`"${key}"."${agent}" in ${file} is not an object`);
    const current = entry?.model;
    if (current === model) continue;
    // Whatever is new goes in first (position 0): appended last, jsonc-parser would put it before the
    // last line's trailing comment and re-indent its neighbour. A model already set is replaced in place.
    if (!hasSection) next = editJsonc(next, [key], { [agent]: { model } }, 0);
    else if (entry === undefined) next = editJsonc(next, [key, agent], { model }, 0);
    else next = editJsonc(next, [key, agent, 'model'], model, current === undefined ? 0 : undefined);
    hasSection = true;
    changes.push({ agent, from: typeof current === 'string' ? current : null, to: model });
  }
  return { text: next, changes };
}

/**
 * A line diff of two texts that differ in a few places: the changed run between the common head and
 * tail, with up to CONTEXT_LINES of context, `-` before and `+` after (as `diff -u` shows it).
 */
export const CONTEXT_LINES = 2;

export function lineDiff(before: string, after: string): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  if (head === a.length && head === b.length) return [];
  const context = (lines: string[]) => lines.map((line) => `  ${line}`);
  return [
    ...context(a.slice(Math.max(0, head - CONTEXT_LINES), head)),
    ...a.slice(head, a.length - tail).map((line) => `- ${line}`),
    ...b.slice(head, b.length - tail).map((line) => `+ ${line}`),
    ...context(a.slice(a.length - tail, a.length - tail + CONTEXT_LINES)),
  ];
}
