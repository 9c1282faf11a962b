/**
 * The agent-state tools: status, grading, bug reports and the journal. Each validates its
 * arguments through the core (a bad argument throws a clear error and writes nothing), calls
 * TrackingService, and returns plain markdown for the model.
 */
import type { ToolDefinition } from '@opencode-ai/plugin';
import { resolveCommitRef } from '../../core/projects/commit-ref.js';
import { runGit } from '../../core/projects/git.js';
import * as valid from '../../core/validation.js';
import { InputError } from '../../core/validation.js';
import { GRADE_LABELS } from '../../core/types.js';
import { notCreditedText } from '../../core/integrity/commit-credit.js';
import type { AgentStatus, Grade } from '../../core/types.js';
import { cliHint } from '../../provisioning/cli-location.js';
import { defineTool } from './define.js';
import { formatNumber } from '../../core/report/numbers.js';
import type { ToolContextDeps } from './deps.js';

/** The sheet for `agent-status` (with the models, as `agent-tracker status` shows them), and how the user runs the CLI from where the package is. */
function statusWithCli(deps: ToolContextDeps, status: AgentStatus, models?: readonly string[]): string {
  return ['```', deps.renderStatus(status, models), '```', cliHint()].join('\n');
}

/** The reply when a model sends a "user grade" through the tool: no agent tool can give the user's grade. */
const USER_GRADE_IGNORED = 'The userGrade/userNote you sent were ignored: only the user grades, with /grade.';

const gradeHelp = Object.entries(GRADE_LABELS)
  .sort(([a], [b]) => Number(a) - Number(b))
  .map(([value, label]) => `${value} ${label}`)
  .join(', ');

export function stateTools(deps: ToolContextDeps): Record<string, ToolDefinition> {
  const { service } = deps;
  return {
    'agent-status': defineTool({
      description: 'Show an agent\'s tracked status sheet: SP, XP, CS, trust tier, commits, bugs, halt state.',
      args: (a) => ({ agent: a.optionalText('Agent name; defaults to the calling agent') }),
      async execute(args, context) {
        const named = args.agent?.trim();
        const agent = named ? valid.agentName(named) : context.agent;
        // The same figures as `agent-tracker status`: what this session recorded so far counts too.
        service.flush('agent-status');
        const { statusAnswer } = await import('../../core/answers/status.js');
        const [summary] = statusAnswer(service.store, service.config.rules, agent).agents;
        if (summary === undefined && agent !== context.agent && !service.knowsAgent(agent)) throw new InputError(`no agent named "${agent}" has been tracked yet`);
        return summary ? statusWithCli(deps, summary, summary.models) : statusWithCli(deps, service.getAgentStatus(agent));
      },
    }),

    'grade-commit': defineTool({
      description:
        `Grade a commit you made, after making it: your own grade (${gradeHelp}) and a note on how it went. ` +
        'Records the retrospective and updates the communication score. The user grades your work themselves, with /grade.',
      args: (a) => ({
        commit: a.text('The commit: its hash (or a unique prefix), HEAD for the latest, or HEAD~N'),
        agentGrade: a.number(`Your grade of your own work: ${gradeHelp}`),
        task: a.optionalText('What the commit was for'),
        agentNote: a.optionalText('Your note on how the work went'),
      }),
      async execute(args, context) {
        // Every argument is checked before git runs, so a bad grade never costs a git call.
        valid.grade(args.agentGrade, 'agent grade');
        // Checked against the project's git history, so a typo is never graded.
        const commit = await resolveCommitRef(context.directory, args.commit, runGit, true);
        const entry = service.gradeCommit({
          sessionId: context.sessionID,
          agent: context.agent,
          project: deps.project,
          commit,
          agentGrade: args.agentGrade,
          task: args.task,
          agentNote: args.agentNote,
        });
        // A model may still send a "user grade" (old prompts): it is dropped, never recorded as the user's.
        const relayed = 'userGrade' in (args as Record<string, unknown>) || 'userNote' in (args as Record<string, unknown>);
        return [
          `Recorded your self-grade of commit ${entry.commit.slice(0, 12)} for ${entry.agent}: ${GRADE_LABELS[entry.agent_grade as Grade]}.`,
          `CS ${formatNumber(entry.score_before)} -> ${formatNumber(entry.score_after)}.`,
          ...(entry.noCredit ? [`The commit is ${notCreditedText(entry.noCredit)}; its grade earns no CS and no XP.`] : []),
          ...(relayed ? [USER_GRADE_IGNORED] : []),
          'The user grades the work themselves with /grade N [COMMIT] [note]; do not ask them for a grade.',
        ].join('\n');
      },
    }),

    'report-bug': defineTool({
      description:
        'Report a bug: SP -1, bugs +1; the agent halts at SP 0 until the user revives it. A bug of your own work counts at your word; ' +
        'a bug against ANOTHER agent counts only with `commit`, the hash of a commit that agent made in this project (else it is kept as an unverified report at no cost).',
      args: (a) => ({
        description: a.text('What went wrong (required)'),
        agent: a.optionalText('Agent that introduced the bug; defaults to the calling agent'),
        commit: a.optionalText('The commit that introduced the bug: its hash (or a unique prefix), HEAD or HEAD~N; required when `agent` is another agent'),
      }),
      async execute(args, context) {
        const named = args.commit?.trim() ? await resolveCommitRef(context.directory, args.commit) : undefined;
        const accused = valid.agentName(args.agent?.trim() || context.agent);
        const wasHalted = service.isHalted(accused);
        const { status, verdict } = service.reportBug({
          agent: accused,
          reporter: context.agent,
          ...(named ? { commit: named } : {}),
          sessionId: context.sessionID,
          project: deps.project,
          description: args.description,
        });
        if (!verdict.verified) {
          return `Not counted against ${status.id}: ${verdict.reason}. The report is kept as unverified; SP stays ${formatNumber(status.sp)}.`;
        }
        const halted = status.halted
          ? `\n${status.id} is ${wasHalted ? 'still' : 'now'} HALTED. The user must review and run: agent-tracker revive ${status.id}`
          : '';
        return `Bug recorded for ${status.id}: SP ${formatNumber(status.sp)}, bugs ${status.bugs}.${halted}`;
      },
    }),

    'log-activity': defineTool({
      description: 'Add an entry to the activity journal: the task, the actions taken, the outcome and the decisions made.',
      args: (a) => ({
        task: a.text('The task worked on'),
        actions: a.optionalText('What was done'),
        outcome: a.optionalText('What came of it'),
        decisions: a.optionalText('Decisions made and why'),
      }),
      async execute(args, context) {
        const entry = service.logActivity({
          agent: context.agent,
          project: deps.project,
          sessionId: context.sessionID,
          task: args.task,
          actions: args.actions,
          outcome: args.outcome,
          decisions: args.decisions,
        });
        return `Activity logged for ${entry.agent} at ${entry.timestamp}: ${entry.task}`;
      },
    }),
  };
}
