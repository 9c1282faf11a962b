/**
 * Output masking for OpenCode 2's tool results. The result's text, structured output and metadata go
 * through the same masker as version 1's output; it fails CLOSED: when anything goes wrong, the
 * result is replaced by the withheld notice, never passed through.
 */
import { MASKING_FAILED_OUTPUT } from '../../opencode/guards/output-mask.js';
import type { ToolOutput } from '../../opencode/guards/output-mask.js';
import type { V2ToolResult } from './host-types.js';
import { isDict, resultText } from './events.js';

function withhold(result: V2ToolResult): void {
  result.content = MASKING_FAILED_OUTPUT;
  delete result.output;
  result.metadata = {};
}

/** Writes the masked text back in the result's own shape: a string stays a string, parts keep their files. */
function writeBack(result: V2ToolResult, text: string, carried: unknown): void {
  const content = result.content;
  if (Array.isArray(content)) {
    const files = content.filter((part) => part.type !== 'text');
    result.content = text === '' && files.length === content.length ? content : [{ type: 'text', text }, ...files];
  } else if (content !== undefined) {
    result.content = text;
  }
  const masked = isDict(carried) ? carried : {};
  if (result.output !== undefined && 'output' in masked) result.output = masked.output;
  if (isDict(masked.metadata)) result.metadata = masked.metadata;
}

/**
 * Masks `result` in place with `mask` (version 1's maskToolOutput bound to the project's secrets).
 * Never throws; a promise only while `mask` waits for the first scan of the project's env files.
 */
export function maskToolResult(result: V2ToolResult, mask: (output: ToolOutput) => void | Promise<void>): void | Promise<void> {
  let view: ToolOutput;
  try {
    view = { title: '', output: resultText(result.content), metadata: { output: result.output, metadata: result.metadata ?? {} } };
  } catch {
    withhold(result);
    return undefined;
  }
  const finish = (): void => {
    try {
      if (view.output === MASKING_FAILED_OUTPUT) withhold(result);
      else writeBack(result, view.output, view.metadata);
    } catch {
      withhold(result);
    }
  };
  try {
    const pending = mask(view);
    if (pending) return pending.then(finish, () => withhold(result));
  } catch {
    withhold(result);
    return undefined;
  }
  finish();
  return undefined;
}
