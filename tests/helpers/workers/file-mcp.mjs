#!/usr/bin/env node
/**
 * A small local MCP server over stdio for the secrets e2e test, in the shape of a filesystem
 * server: `read_file` returns a file of the folder given as its argument as text, `read_file_strict` returns it
 * inside an error result, `read_file_image` returns its bytes as an image item. It ends by itself
 * after SELF_EXIT_MS, so a test that forgets it cannot leave it behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const SELF_EXIT_MS = 180_000;
setTimeout(() => process.exit(0), SELF_EXIT_MS).unref();

const pathArg = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
const TOOLS = [
  { name: 'read_file', description: 'Read a text file', inputSchema: pathArg },
  { name: 'read_file_strict', description: 'Read a file, failing loudly', inputSchema: pathArg },
  { name: 'read_file_image', description: 'Read a file as an image', inputSchema: pathArg },
];

const server = new Server({ name: 'files', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const file = path.resolve(process.argv[2] ?? process.cwd(), String(request.params.arguments?.path ?? ''));
  const bytes = fs.readFileSync(file);
  switch (request.params.name) {
    case 'read_file':
      return { content: [{ type: 'text', text: bytes.toString('utf8') }] };
    case 'read_file_strict':
      return { isError: true, content: [{ type: 'text', text: `Error: unexpected content in ${file}:\n${bytes.toString('utf8')}` }] };
    default:
      return { content: [{ type: 'image', mimeType: 'image/png', data: bytes.toString('base64') }] };
  }
});
await server.connect(new StdioServerTransport());
