/**
 * A loopback stand-in for the model: an OpenAI-compatible `POST /v1/chat/completions` server on
 * 127.0.0.1 that answers from a script. It is the only mocked part of the end-to-end tests.
 * It stops by itself after `maxRequests` or `lifetimeMs`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ToolCallStep {
  tool: string;
  args: Record<string, unknown>;
}

/** One model reply: tool calls (run in parallel by the host) or final text. */
export type Step = { tools: ToolCallStep[] } | { text: string };

export interface ChatRequest {
  messages: { role: string; content?: unknown; tool_calls?: unknown[] }[];
  tools?: unknown[];
}

/** Chooses the reply: by the conversation's last user text and how many replies followed it. */
export type Script = (context: { userText: string; step: number; request: ChatRequest }) => Step;

export interface FakeModel {
  url: string;
  requests: ChatRequest[];
  close(): Promise<void>;
}

export const call = (tool: string, args: Record<string, unknown>): Step => ({ tools: [{ tool, args }] });
export const bash = (command: string): Step => call('bash', { command, description: command.slice(0, 60) });
export const say = (text: string): Step => ({ text });

/** A script from prompt markers: the first marker found in the user's text picks the steps. */
export function scriptByPrompt(scripts: Record<string, Step[]>): Script {
  return ({ userText, step }) => {
    for (const [marker, steps] of Object.entries(scripts)) {
      if (userText.includes(marker)) return steps[step] ?? say('Done.');
    }
    return say('Done.');
  };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === 'object' && part && 'text' in part ? String(part.text) : '')).join(' ');
  }
  return '';
}

function contextOf(request: ChatRequest): { userText: string; step: number } {
  const messages = request.messages ?? [];
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    if (messages[i]?.role === 'user') {
      lastUser = i;
      break;
    }
  }
  const after = messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
  return { userText: lastUser >= 0 ? textOf(messages[lastUser]?.content) : '', step: after };
}

/** The usage every reply reports, so tests can compute the tokens a session should have. */
export const FAKE_USAGE = { promptTokens: 120, completionTokens: 30 } as const;

let callCounter = 0;

/** `per-response`: ids restart in every response (`call_0`, `call_1`, …), as several real providers do. */
export type CallIds = 'unique' | 'per-response';

function sseChunks(step: Step, callIds: CallIds = 'unique'): unknown[] {
  const base = { id: `chatcmpl-${Date.now()}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: 'fake-model' };
  const chunks: unknown[] = [];
  if ('text' in step) {
    chunks.push({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: step.text }, finish_reason: null }] });
    chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  } else {
    step.tools.forEach((toolCall, index) => {
      callCounter += 1;
      chunks.push({
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              tool_calls: [
                { index, id: callIds === 'per-response' ? `call_${index}` : `call_${callCounter}`, type: 'function', function: { name: toolCall.tool, arguments: JSON.stringify(toolCall.args) } },
              ],
            },
            finish_reason: null,
          },
        ],
      });
    });
    chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
  }
  chunks.push({
    ...base,
    choices: [],
    usage: { prompt_tokens: FAKE_USAGE.promptTokens, completion_tokens: FAKE_USAGE.completionTokens, total_tokens: FAKE_USAGE.promptTokens + FAKE_USAGE.completionTokens },
  });
  return chunks;
}

export async function startFakeModel(script: Script, options: { maxRequests?: number; lifetimeMs?: number; callIds?: CallIds } = {}): Promise<FakeModel> {
  const maxRequests = options.maxRequests ?? 200;
  const requests: ChatRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions') || requests.length >= maxRequests) {
        res.writeHead(404).end();
        return;
      }
      let request: ChatRequest;
      try {
        request = JSON.parse(body) as ChatRequest;
      } catch {
        res.writeHead(400).end();
        return;
      }
      requests.push(request);
      const step: Step = request.tools && request.tools.length > 0 ? script({ ...contextOf(request), request }) : say('Fake title');
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      for (const chunk of sseChunks(step, options.callIds)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const lifetime = setTimeout(() => server.close(), options.lifetimeMs ?? 10 * 60_000);
  lifetime.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        clearTimeout(lifetime);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
