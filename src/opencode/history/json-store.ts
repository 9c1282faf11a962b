/**
 * OpenCode's older history layout: JSON files under `storage/session/<project>/<session>.json`,
 * `storage/message/<session>/<message>.json` and `storage/part/<message>/<part>.json`. Read-only;
 * one session's files are read at a time. A half-written or unreadable file skips its session.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { HistoryQuery, HistorySource, HostMessage, HostSession, UnreadableSession } from '../../core/backfill/history.js';
import { addPromptText, isDict, num, parseMessage, parseToolPart, parseUserText, sessionFolder, str } from './parse.js';

export const UNREADABLE_FILE = 'unreadable or half-written JSON file';

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
}

function jsonFiles(folder: string): string[] {
  try {
    return fs.readdirSync(folder).filter((name) => name.endsWith('.json')).sort().map((name) => path.join(folder, name));
  } catch {
    return [];
  }
}

/** A session's own fields, read before its messages. */
type SessionHead = Omit<HostSession, 'messages'>;

function parseSessionHead(data: unknown): SessionHead | undefined {
  if (!isDict(data)) return undefined;
  const id = str(data.id);
  const directory = str(data.directory);
  if (!id || !directory) return undefined;
  const time = isDict(data.time) ? data.time : {};
  const parentId = str(data.parentID);
  const createdAt = num(time.created) ?? 0;
  return { id, ...(parentId ? { parentId } : {}), directory, title: str(data.title) ?? '', createdAt, updatedAt: num(time.updated) ?? createdAt };
}

export class JsonHistorySource implements HistorySource {
  readonly description: string;
  private readonly storage: string;

  constructor(storageFolder: string) {
    this.storage = storageFolder;
    this.description = `OpenCode's JSON history at ${storageFolder}`;
  }

  count(query: HistoryQuery): number {
    let count = 0;
    for (const head of this.heads(query)) if (head) count += 1;
    return count;
  }

  earliestCreated(query: HistoryQuery): number | undefined {
    let earliest: number | undefined;
    for (const head of this.heads(query)) if (head && (earliest === undefined || head.createdAt < earliest)) earliest = head.createdAt;
    return earliest;
  }

  async *sessions(query: HistoryQuery): AsyncIterable<HostSession | UnreadableSession> {
    const heads: SessionHead[] = [];
    for (const head of this.heads(query)) {
      if (head) heads.push(head);
      else yield { unreadable: UNREADABLE_FILE };
    }
    heads.sort((a, b) => a.updatedAt - b.updatedAt || a.id.localeCompare(b.id));
    for (const head of heads) {
      const session = this.readSession(head);
      if ('unreadable' in session) yield session;
      else if (query.directory === undefined || isInside(session.directory, query.directory)) yield session;
    }
  }

  /** The session files matching `query`, each as its head or undefined when the file cannot be read. */
  private *heads(query: HistoryQuery): Generator<SessionHead | undefined> {
    const sessionRoot = path.join(this.storage, 'session');
    for (const project of fs.existsSync(sessionRoot) ? fs.readdirSync(sessionRoot).sort() : []) {
      for (const file of jsonFiles(path.join(sessionRoot, project))) {
        let head: SessionHead | undefined;
        try {
          head = parseSessionHead(readJson(file));
        } catch {
          head = undefined;
        }
        if (!head) {
          yield undefined;
          continue;
        }
        if (query.updatedAfter !== undefined && head.updatedAt <= query.updatedAfter) continue;
        if (query.createdSince !== undefined && head.createdAt < query.createdSince) continue;
        if (query.createdBefore !== undefined && head.createdAt >= query.createdBefore) continue;
        yield head;
      }
    }
  }

  private readSession(head: SessionHead): HostSession | UnreadableSession {
    try {
      const messages: (HostMessage & { root?: string })[] = [];
      for (const file of jsonFiles(path.join(this.storage, 'message', head.id))) {
        const data = readJson(file);
        const id = isDict(data) ? str(data.id) : undefined;
        const message = id ? parseMessage(id, data) : undefined;
        if (!message) continue;
        for (const partFile of jsonFiles(path.join(this.storage, 'part', message.id))) {
          const part = readJson(partFile);
          const call = parseToolPart(part);
          if (call) message.tools.push(call);
          else addPromptText(message, parseUserText(part));
        }
        messages.push(message);
      }
      messages.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
      return { ...head, directory: sessionFolder(head.directory, messages), messages };
    } catch {
      return { unreadable: UNREADABLE_FILE, id: head.id };
    }
  }

  close(): void {
    // Nothing held open: every file is read and closed at once.
  }
}

/** Whether `folder` is `parent` or inside it. */
export function isInside(folder: string, parent: string): boolean {
  const relative = path.relative(parent, folder);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
