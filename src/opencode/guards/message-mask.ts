/**
 * The last pass before a request leaves for the model: every tool part of the conversation is
 * masked again in `experimental.chat.messages.transform`, which the host runs on the messages it
 * is about to convert (and keeps using them: rewritten in place). This covers what no
 * `tool.execute.after` sees: a tool that fails (an MCP error result, a thrown error) reaches the
 * model only as the part's error text. The user's own text is left alone. Fails CLOSED: a part
 * that cannot be checked is replaced by the one-line notice.
 */
import type { TextMasker } from '../../core/secrets/mask.js';
import { maskWith, withhold } from './output-mask.js';
import type { ToolOutput } from './output-mask.js';

/** What `experimental.chat.messages.transform` hands over (only the fields read here). */
export interface ModelMessages {
  messages: { parts: unknown[] }[];
}

/** The state of each tool part in the messages: the object that holds its output, error and attachments. */
function toolStates(output: ModelMessages, only?: ReadonlySet<string>): ToolOutput[] {
  const states: ToolOutput[] = [];
  for (const message of Array.isArray(output.messages) ? output.messages : []) {
    for (const part of Array.isArray(message?.parts) ? message.parts : []) {
      const fields = part as { type?: unknown; tool?: unknown; state?: unknown };
      if (only && !(typeof fields?.tool === 'string' && only.has(fields.tool))) continue;
      if (fields?.type === 'tool' && typeof fields.state === 'object' && fields.state !== null) states.push(fields.state as ToolOutput);
    }
  }
  return states;
}

function maskStates(output: ModelMessages, active: TextMasker, crossProject?: CrossProject): void {
  for (const state of toolStates(output)) maskWith(state, active);
  if (crossProject) for (const state of toolStates(output, crossProject.tools)) maskWith(state, crossProject.masker());
}

function withholdStates(output: ModelMessages): void {
  for (const state of toolStates(output)) withhold(state);
}

/**
 * The tracker's own tools (prior-art and the like) show text recorded in other projects: their
 * parts are masked again with every known project's values, not only this project's.
 */
export interface CrossProject {
  tools: ReadonlySet<string>;
  masker: () => TextMasker;
}

/** Masks every tool part's state in place; never throws. A promise only while the first scan for env files runs. */
export function maskModelMessages(
  output: ModelMessages,
  masker: () => TextMasker | Promise<TextMasker>,
  crossProject?: CrossProject,
): void | Promise<void> {
  let active: TextMasker | Promise<TextMasker>;
  try {
    active = masker();
  } catch {
    withholdStates(output);
    return undefined;
  }
  if (!(active instanceof Promise)) return maskStates(output, active, crossProject);
  return active.then(
    (ready) => maskStates(output, ready, crossProject),
    () => withholdStates(output),
  );
}
