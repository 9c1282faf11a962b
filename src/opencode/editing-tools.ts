/** Tools whose `filePath` argument names a file they change: live hooks and the history readers note the same edits. */
export const EDITING_TOOLS: ReadonlySet<string> = new Set(['edit', 'write', 'patch', 'multiedit']);
