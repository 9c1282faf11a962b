/**
 * A ranked candidate's entry as the match prior art shows: its task on one line, its notes
 * labelled (agent and user notes; outcome and decisions; a commit's message body and files),
 * its grade and who gave it.
 */
import type { Store } from '../store/store.js';
import type { ActivityEntry, CommitRecord, RetrospectiveEntry } from '../types.js';
import type { DocumentRef } from './index/layout.js';
import type { Candidate, Judgement } from './ranking.js';
import type { PatternMatch } from './types.js';

/** Listed files of a commit in its notes. */
const FILES_SHOWN = 5;

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function labelled(parts: [string, string][]): string {
  return parts
    .filter(([, text]) => oneLine(text) !== '')
    .map(([label, text]) => `${label}: ${oneLine(text)}`)
    .join(' ');
}

/** A match's grade fields from its judgement: none when nobody graded it; a reported bug says so instead of a grade. */
function gradeOf(judgement: Judgement): Pick<PatternMatch, 'grade' | 'gradedBy' | 'judgedBy'> {
  if (judgement.judgedBy === 'reported-bug' || judgement.judgedBy === 'reverted') return { judgedBy: judgement.judgedBy };
  if (judgement.grade === undefined || judgement.gradedBy === undefined) return {};
  return judgement.judgedBy === undefined
    ? { grade: judgement.grade, gradedBy: judgement.gradedBy }
    : { grade: judgement.grade, gradedBy: judgement.gradedBy, judgedBy: judgement.judgedBy };
}

/**
 * The match `candidate` (whose entry `ref` names) stands for, in `scope`; undefined when its entry
 * is gone, or for a commit a retrospective stands for.
 */
export function matchOf(t: Store['tables'], ref: DocumentRef, candidate: Candidate, relevanceScore: number, scope: string): PatternMatch | undefined {
  switch (ref[0]) {
    case 'retrospective': {
      const entry: RetrospectiveEntry | undefined = t.retrospectives.get([ref[1], ref[2]]);
      if (!entry) return undefined;
      return {
        source: 'retrospective',
        task: oneLine(entry.task) || `commit ${entry.commit.slice(0, 12)}`,
        notes: labelled([['Agent note', entry.agent_note], ['User note', candidate.userNote || entry.user_note]]),
        ...gradeOf(candidate),
        agentId: entry.agent,
        scope,
        timestamp: entry.timestamp,
        relevanceScore,
        projectPath: entry.project,
      };
    }
    case 'activity': {
      const entry: ActivityEntry | undefined = t.activities.get([ref[1], ref[2], ref[3]]);
      if (!entry) return undefined;
      return {
        source: 'activity',
        task: oneLine(entry.task),
        notes: labelled([['Outcome', entry.outcome], ['Decisions', entry.decisions]]),
        ...gradeOf(candidate),
        agentId: entry.agent,
        scope,
        timestamp: entry.timestamp,
        relevanceScore,
        projectPath: entry.project,
      };
    }
    case 'commit': {
      const entry: CommitRecord | undefined = t.commits.get([ref[1], ref[2]]);
      if (!entry || t.retrospectives.doesExist([entry.agent, entry.hash])) return undefined;
      const [subject = '', ...body] = entry.message.split('\n');
      const files = entry.files.length > FILES_SHOWN
        ? `${entry.files.slice(0, FILES_SHOWN).join(', ')} (+${entry.files.length - FILES_SHOWN} more)`
        : entry.files.join(', ');
      return {
        source: 'commit',
        task: oneLine(subject),
        notes: labelled([['Message', body.join(' ')], ['Files', files], ['User note', candidate.userNote ?? '']]),
        ...gradeOf(candidate),
        agentId: entry.agent,
        scope,
        timestamp: entry.timestamp,
        relevanceScore,
        projectPath: entry.project,
      };
    }
  }
}
