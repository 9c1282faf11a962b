/**
 * The last pass before a request leaves for the model: every tool part of the conversation is
 * masked again in `experimental.chat.messages.transform`, which the host runs on the messages it
 * is about to convert (and keeps using them: rewritten in place). This covers what no
 * `tool.execute.after` sees: a tool that fails (an MCP error result, a thrown error) reaches the
 * model only as the part's error text. The user's own text is left alone. Fails CLOSED: a part
 * that cannot be checked is replaced by the one-line notice.
 */
import type { SecretMasker } from '../../core/secrets/mask.js';
import { maskWith, withhold } from './output-mask.js';
import type { ToolOutput } from './output-mask.js';

/** What `experimental.chat.messages.transform` hands over (only the fields read here). */
export interface ModelMessages {
  messages: { parts: unknown[] }[];
}

/** The state of each tool part in the messages: the object that holds its output, error and attachments. */
function toolStates(output: ModelMessages): ToolOutput[] {
  const states: ToolOutput[] = [];
  for (const message of Array.isArray(output.messages) ? output.messages : []) {
    for (const part of Array.isArray(message?.parts) ? message.parts : []) {
      const fields = part as { type?: unknown; state?: unknown };
      if (fields?.type === 'tool' && typeof fields.state === 'object' && fields.state !== null) states.push(fields.state as ToolOutput);
    }
  }
  return states;
}

function maskStates(output: ModelMessages, active: SecretMasker): void {
  for (const state of toolStates(output)) maskWith(state, active);
}

function withholdStates(output: ModelMessages): void {
  for (const state of toolStates(output)) withhold(state);
}

/** Masks every tool part's state in place; never throws. A promise only while the first scan for env files runs. */
export function maskModelMessages(output: ModelMessages, masker: () => SecretMasker | Promise<SecretMasker>): void | Promise<void> {
  let active: SecretMasker | Promise<SecretMasker>;
  try {
    active = masker();
  } catch {
    withholdStates(output);
    return undefined;
  }
  if (!(active instanceof Promise)) return maskStates(output, active);
  return active.then(
    (ready) => maskStates(output, ready),
    () => withholdStates(output),
  );
}
