/**
 * The journal (the activities table): entries masked and keyed [agent, time, suffix]. Holds the
 * entries agents write, the records of user-only actions, and the keys of grade events.
 */
import { randomBytes } from 'node:crypto';
import type { JournalKey } from '../store/mutations.js';
import type { ActivityEntry, UserActionProvenance } from '../types.js';
import { UNKNOWN } from '../types.js';
import * as valid from '../validation.js';
import type { Sessions } from './sessions.js';
import type { WriteBuffer } from './write-buffer.js';

export interface ActivityInput {
  agent: string;
  project: string;
  sessionId?: string;
  task: unknown;
  actions?: unknown;
  outcome?: unknown;
  decisions?: unknown;
}

export class Journal {
  private readonly uniquePrefix = `${process.pid.toString(36)}${randomBytes(3).toString('hex')}`;
  private sequence = 0;

  constructor(
    private readonly buffer: WriteBuffer,
    private readonly sessions: Sessions,
    private readonly maskText: (text: string) => string,
    private readonly now: () => Date,
  ) {}

  /** [agent, time, suffix]: the suffix (process, random, sequence) keeps keys of one instant apart. */
  key(agent: string, timestamp: string): JournalKey {
    this.sequence += 1;
    return [agent, timestamp, `${this.uniquePrefix}${this.sequence.toString(36).padStart(6, '0')}`];
  }

  /** Buffers an entry with its free text masked; returns its key. */
  add(entry: ActivityEntry): JournalKey {
    const record = this.prepare(entry);
    this.buffer.put({ table: 'activities', ...record });
    return record.key;
  }

  /** An entry as it is stored (free text masked) with its new key, not buffered: a host event carries it (Ledger.replay). */
  prepare(entry: ActivityEntry): { key: JournalKey; value: ActivityEntry } {
    const value = { ...entry, task: this.maskText(entry.task), actions: this.maskText(entry.actions), outcome: this.maskText(entry.outcome), decisions: this.maskText(entry.decisions) };
    return { key: this.key(entry.agent, entry.timestamp), value };
  }

  /**
   * A journal entry written by an agent.
   * @throws InputError for a bad agent name or text.
   */
  logActivity(input: ActivityInput): ActivityEntry {
    const agent = valid.agentName(input.agent);
    const entry: ActivityEntry = {
      timestamp: this.now().toISOString(),
      task: valid.text(input.task, 'task', { required: true }),
      actions: valid.text(input.actions, 'actions'),
      outcome: valid.text(input.outcome, 'outcome'),
      decisions: valid.text(input.decisions, 'decisions'),
      agent,
      model: input.sessionId ? this.sessions.setupOf(input.sessionId).model : UNKNOWN,
      project: input.project,
      ...(input.sessionId ? { sessionId: input.sessionId } : {}),
      automatic: false,
    };
    this.add(entry);
    return entry;
  }

  /** The record of a user-only action (how it came, whether suspect); returns its key. */
  recordUserAction(input: { agent: string; project: string; summary: string; provenance: UserActionProvenance }): JournalKey {
    return this.add({
      timestamp: this.now().toISOString(),
      task: this.maskText(input.summary).slice(0, valid.MAX_TEXT_LENGTH),
      actions: '',
      outcome: input.provenance.suspect ? 'suspect user action' : 'user action',
      decisions: '',
      agent: input.agent,
      model: UNKNOWN,
      project: input.project,
      automatic: false,
      userAction: input.provenance,
    });
  }
}
