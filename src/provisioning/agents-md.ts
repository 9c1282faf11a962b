/**
 * The scoring rules in the global `AGENTS.md`, between a begin and an end marker: the file is created
 * if missing, the section appended if absent, and replaced in place when the shipped text differs.
 * Text outside the markers is never changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readText, removedByUser, writeText } from './context.js';
import { AGENTS_MD_ITEM } from './items.js';
import type { ProvisionContext } from './context.js';
import type { StepResult } from './step.js';

/** Shipped section text, relative to the package root. */
export const TRACK_AGENTS_FILE = path.join('agents', 'TRACK_AGENTS.md');
export const AGENTS_MD = 'AGENTS.md';
export const BEGIN_MARKER = '<!-- BEGIN opencode-agent-tracker: scoring rules (replaced on upgrade; edit outside these markers) -->';
export const END_MARKER = '<!-- END opencode-agent-tracker: scoring rules -->';
/** How a marker line is recognised, whatever the wording after the name. */
export const BEGIN_PREFIX = '<!-- BEGIN opencode-agent-tracker';
const END_PREFIX = '<!-- END opencode-agent-tracker';

export type SectionAction = 'created' | 'appended' | 'replaced' | 'unchanged';

/** The section as it goes into AGENTS.md: markers around the shipped text, in the file's line endings. */
export function renderSection(body: string, eol = '\n'): string {
  const lines = [BEGIN_MARKER, ...body.replace(/\r\n/g, '\n').trim().split('\n'), END_MARKER];
  return lines.join(eol);
}

interface SectionSpan {
  start: number;
  end: number;
}

/** Where the marked section is (begin of the begin line to the end of the end line); throws if malformed. */
function findSection(text: string): SectionSpan | undefined {
  const begin = text.indexOf(BEGIN_PREFIX);
  const endMarker = text.indexOf(END_PREFIX);
  if (begin === -1 && endMarker === -1) return undefined;
  const repeated = text.indexOf(BEGIN_PREFIX, begin + 1) !== -1 || text.indexOf(END_PREFIX, endMarker + 1) !== -1;
  if (begin === -1 || endMarker === -1 || endMarker < begin || repeated) {
    throw new Error('its agent-tracker markers are incomplete, out of order or repeated');
  }
  const lineEnd = text.indexOf('\n', endMarker);
  const end = lineEnd === -1 ? text.length : text[lineEnd - 1] === '\r' ? lineEnd - 1 : lineEnd;
  return { start: begin, end };
}

/** The new text of AGENTS.md (undefined = no file yet) with the section in place. Pure. */
export function mergeSection(existing: string | undefined, body: string): { text: string; action: SectionAction } {
  if (existing === undefined) return { text: `${renderSection(body)}\n`, action: 'created' };
  const eol = existing.includes('\r\n') ? '\r\n' : '\n';
  const section = renderSection(body, eol);
  const span = findSection(existing);
  if (!span) {
    const separator = existing === '' ? '' : existing.endsWith(eol) ? eol : eol + eol;
    return { text: `${existing}${separator}${section}${eol}`, action: 'appended' };
  }
  if (existing.slice(span.start, span.end) === section) return { text: existing, action: 'unchanged' };
  return { text: existing.slice(0, span.start) + section + existing.slice(span.end), action: 'replaced' };
}

/** Puts the shipped scoring rules into `<config>/AGENTS.md`. */
export function installAgentsMd(context: ProvisionContext, root: string): StepResult {
  const body = fs.readFileSync(path.join(root, TRACK_AGENTS_FILE), 'utf8');
  const file = path.join(context.configDir, AGENTS_MD);
  if (fs.existsSync(file) && !fs.statSync(file).isFile()) {
    throw new Error(`${file} is not a file; it was left untouched. Move it aside, then run "agent-tracker setup".`);
  }
  if (context.skipItems.has(AGENTS_MD_ITEM) && !readText(context, file)?.includes(BEGIN_PREFIX)) {
    return { step: 'agents-md', status: 'unchanged', messages: [removedByUser(`the scoring rules in ${file}`)] };
  }
  let merged: { text: string; action: SectionAction };
  try {
    merged = mergeSection(readText(context, file), body);
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}; it was left untouched. Fix the markers, then run "agent-tracker setup".`);
  }
  writeText(context, file, merged.text);
  const messages = {
    created: `created ${file} with the scoring rules`,
    appended: `added the scoring rules to ${file}`,
    replaced: `updated the scoring rules in ${file}`,
    unchanged: `the scoring rules in ${file} are current`,
  };
  return { step: 'agents-md', status: merged.action === 'unchanged' ? 'unchanged' : 'changed', messages: [messages[merged.action]] };
}
