/**
 * What halts an agent and what brings it back: bug reports (a verified one costs SP, an unverified
 * one is only journalled) and the user's revive.
 */
import { judgeBugReport } from '../integrity/bug-evidence.js';
import type { BugReportVerdict } from '../integrity/bug-evidence.js';
import type { AgentStatus } from '../types.js';
import { UNKNOWN } from '../types.js';
import { BUG_REPORT_ENTRY } from '../../contract/records.js';
import * as valid from '../validation.js';
import type { Agents } from './agents.js';
import type { Commits } from './commits.js';
import type { TrackingContext } from './context.js';

export interface BugReportInput {
  agent: unknown;
  reporter?: string;
  commit?: unknown;
  sessionId?: string;
  project?: string;
  description: unknown;
}

export class BugReports {
  constructor(
    private readonly ctx: TrackingContext,
    private readonly agents: Agents,
    private readonly commits: Commits,
  ) {}

  /**
   * A bug report. Verified (see `judgeBugReport`: an agent's own work, or a commit of the accused agent
   * named): SP -1 and bugs +1, and the agent halts at SP <= 0. Unverified: only a journal entry that
   * says so, at no cost. Either way the report is kept.
   */
  report(input: BugReportInput): { status: AgentStatus; verdict: BugReportVerdict } {
    const { ctx } = this;
    const description = valid.text(input.description, 'description', { required: true });
    const agent = this.agents.tracked(input.agent, input.sessionId);
    const session = input.sessionId ? { id: input.sessionId, setup: ctx.sessions.setupOf(input.sessionId) } : undefined;
    const project = input.project ?? session?.setup.project ?? ctx.project;
    const named = input.commit === undefined || input.commit === '' ? undefined : valid.commitHash(input.commit);
    const commit = named === undefined ? undefined : this.commits.find(project, named);
    // Without a reporter the agent reports its own work.
    const reporter = input.reporter ?? agent;
    const verdict = judgeBugReport({ reporter, accused: agent, ...(named ? { named } : {}), ...(commit ? { commit } : {}) });
    // The bug is the work's: the named commit's session and model when the agent made it; otherwise
    // (verified only as the agent's own work) the reporting session's.
    const where = commit?.agent === agent
      ? { id: commit.sessionId, setup: { agent: commit.agent, model: commit.model, project: commit.project } }
      : session && { id: session.id, setup: { ...session.setup, agent } };
    if (verdict.verified) {
      ctx.buffer.addAgentOp(agent, { kind: 'bug' });
      this.agents.forgetHalt(agent);
      // Traced to a commit, the bug judges that commit's session; otherwise it is counted in the reporting session.
      if (where && commit?.agent === agent) ctx.ledger.judge(where.id, where.setup, { bugs: 1 });
      else if (where) ctx.ledger.count(where.id, where.setup, { bugs: 1 });
    }
    const task = verdict.verified
      ? `${BUG_REPORT_ENTRY.verified.task}${description}`
      : `${BUG_REPORT_ENTRY.unverified.task}${reporter} (not counted: ${verdict.reason}): ${description}`;
    ctx.journal.add({
      timestamp: ctx.now().toISOString(),
      agent,
      model: (verdict.verified ? where?.setup.model : undefined) ?? UNKNOWN,
      project,
      ...(session ? { sessionId: session.id } : {}),
      task: task.slice(0, valid.MAX_TEXT_LENGTH),
      actions: '',
      outcome: verdict.verified ? BUG_REPORT_ENTRY.verified.outcome : BUG_REPORT_ENTRY.unverified.outcome,
      decisions: '',
      automatic: false,
    });
    ctx.flusher.afterRecord();
    return { status: this.agents.status(agent), verdict };
  }

  /**
   * Clears the halt and sets SP to 1, keeping XP and CS; flushed at once (it is the user's command).
   * An agent that is not halted is left alone (`revived: false`): revive never resets a working agent.
   * @throws InputError for a bad or unknown name; the flush error when the database refuses the write.
   */
  revive(agentInput: unknown): { status: AgentStatus; revived: boolean } {
    const agent = this.agents.known(agentInput);
    if (!this.agents.status(agent).halted) return { status: this.agents.status(agent), revived: false };
    this.ctx.buffer.addAgentOp(agent, { kind: 'revive' });
    this.agents.forgetHalt(agent);
    const outcome = this.ctx.flusher.flush('revive');
    if (!outcome.ok) throw outcome.error;
    return { status: this.agents.status(agent), revived: true };
  }
}
