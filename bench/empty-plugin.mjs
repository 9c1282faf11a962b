/**
 * A plugin that does nothing: what loading any plugin costs OpenCode (plugin-cost-variants.ts). Not a benchmark itself.
 */
async function server() {
  return {};
}

export default { id: 'empty', server };
