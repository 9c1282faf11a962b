/**
 * Fills a real OpenCode database (its tables made by the `opencode` binary itself) with generated
 * sessions. Runs under the Bun inside the `opencode` binary (`BUN_BE_BUN=1 opencode this.mjs DB N`),
 * so rows go in through `bun:sqlite` in OpenCode's own WAL mode, as OpenCode writes them.
 * Each session: 40 assistant messages x 3 parts (step-start, one bash tool call, step-finish).
 * OUTPUT_BYTES (optional, default 40) sizes the output of the calls that make no commit, kept twice as
 * bash keeps it (`state.output` and `metadata.output`): real outputs (file reads, test logs) are
 * kilobytes and most of a real store's bytes (docs/PERFORMANCE.md, nineteenth pass).
 * The environment variable BENCH_PROMPT_EVERY=N (default: none) puts a user's prompt (a message with
 * one text part) before every Nth assistant message, so the store holds turns: each replayed turn is
 * counted and journalled (its entry indexed for prior-art). Without it a session has no turn at all.
 * BENCH_REPOS_DIR=DIR (optional) puts each project in a real git repository DIR/pN holding every commit
 * the sessions print, made at the time of the call that printed it (`git fast-import`): a backfill
 * records and credits only commits the project's git holds (src/core/backfill/commit-witness.ts).
 * Without it the projects are folders that do not exist, and their commits are counted, not recorded.
 * BENCH_REPO_PAST=N (optional, default 0) starts each of those repositories with N commits made before
 * the first session (one an hour), as a project with a past has: a backfill must not pay for them.
 *   BUN_BE_BUN=1 opencode bench/opencode-store-gen.mjs DB SESSIONS [OUTPUT_BYTES]
 * Not a benchmark itself (the runner only picks up `*.bench.mjs`).
 */
import { Database } from 'bun:sqlite';
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [databasePath, sessionsArg, outputBytesArg] = process.argv.slice(2);
const SESSIONS = Number(sessionsArg);
const LOG_LINE = 'src/components/widget.tsx:42:  const value = compute(input, options);\n';
const plainOutput = outputBytesArg === undefined ? 'total 0\n'.repeat(5) : LOG_LINE.repeat(Math.ceil(Number(outputBytesArg) / LOG_LINE.length)).slice(0, Number(outputBytesArg));
const MESSAGES_PER_SESSION = 40;
const PROMPT_EVERY = Number(process.env.BENCH_PROMPT_EVERY ?? 0);
/** Words the prompts are made of, so the term index holds a realistic spread of terms. */
const PROMPT_WORDS = ['fix', 'the', 'flaky', 'widget', 'test', 'add', 'retry', 'to', 'http', 'client', 'parser', 'cache', 'docs', 'refactor', 'login', 'form', 'timeout', 'error', 'message', 'api'];
const PROJECTS = 20;
const T0 = Date.UTC(2025, 0, 1);
/** Every tenth answer's bash call commits. */
const commits = (m) => m % 10 === 9;
const REPOS = process.env.BENCH_REPOS_DIR;
const PAST = Number(process.env.BENCH_REPO_PAST ?? 0);
const folder = (p) => (REPOS ? path.join(REPOS, `p${p}`) : `/projects/p${p}`);
/** When answer `m` of session `s` starts (whole seconds: git keeps a commit's time in seconds). */
const answerAt = (s, m) => T0 + s * 3_600_000 + m * 10_000;

/** The seven characters git prints of each commit, by `s/m`, once the repositories are made (BENCH_REPOS_DIR). */
const printed = new Map();
if (REPOS) {
  for (let p = 0; p < PROJECTS; p += 1) {
    const repo = folder(p);
    fs.mkdirSync(repo, { recursive: true });
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
    const made = Array.from({ length: PAST }, (_v, i) => ({ key: `past/${i}`, message: `earlier work ${i}`, at: T0 - (PAST - i) * 3_600_000 }));
    for (let s = p; s < SESSIONS; s += PROJECTS) for (let m = 0; m < MESSAGES_PER_SESSION; m += 1) if (commits(m)) made.push({ key: `${s}/${m}`, message: `change ${m}`, at: answerAt(s, m) });
    const data = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
    // Each session commit adds a file of its own; the past ones all change one file (a tree of 20,000 files rewritten 20,000 times is slow to make).
    const file = (key) => (key.startsWith('past/') ? 'past.txt' : `${key.replace('/', '-')}.txt`);
    const stream = made.map(({ key, message, at }, i) => `commit refs/heads/main\nmark :${i + 1}\ncommitter Agent <agent@example.test> ${at / 1000} +0000\n${data(message)}M 100644 inline ${file(key)}\n${data(`${key}\n`)}`).join('');
    const marks = path.join(repo, '.git', 'marks');
    execFileSync('git', ['fast-import', '--quiet', `--export-marks=${marks}`], { cwd: repo, input: Buffer.from(stream), maxBuffer: 64 * 1024 * 1024 });
    const byMark = new Map(fs.readFileSync(marks, 'utf8').trim().split('\n').filter(Boolean).map((line) => line.split(' ')));
    made.forEach(({ key }, i) => printed.set(key, (byMark.get(`:${i + 1}`) ?? '').slice(0, 7)));
  }
}

const db = new Database(databasePath);
db.exec('PRAGMA journal_mode = WAL');
const insertProject = db.prepare('INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES (?,?,?,?,?)');
const insertSession = db.prepare('INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?)');
const insertMessage = db.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)');
const insertPart = db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)');

db.transaction(() => {
  for (let p = 0; p < PROJECTS; p += 1) insertProject.run(`prj${p}`, folder(p), T0, T0, '[]');
})();
const writeSession = db.transaction((s) => {
  const id = `ses_${String(s).padStart(6, '0')}`;
  const start = answerAt(s, 0);
  const directory = folder(s % PROJECTS);
  insertSession.run(id, `prj${s % PROJECTS}`, null, `slug-${s}`, directory, `session ${s}`, '1.18.33', start, start + MESSAGES_PER_SESSION * 10_000);
  for (let m = 0; m < MESSAGES_PER_SESSION; m += 1) {
    const messageId = `msg_${String(s).padStart(6, '0')}_${String(m).padStart(3, '0')}`;
    const at = answerAt(s, m);
    if (PROMPT_EVERY > 0 && m % PROMPT_EVERY === 0) {
      // The user's message a millisecond before the answer it opens: the readers order a session's messages by time.
      const userId = `usr_${String(s).padStart(6, '0')}_${String(m).padStart(3, '0')}`;
      const prompt = Array.from({ length: 8 }, (_v, w) => PROMPT_WORDS[(s * 7 + m * 3 + w * 5) % PROMPT_WORDS.length]).join(' ');
      insertMessage.run(userId, id, at - 1, at - 1, JSON.stringify({ role: 'user', time: { created: at - 1 }, agent: 'build', model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' } }));
      insertPart.run(`prt_${userId}`, userId, id, at - 1, at - 1, JSON.stringify({ type: 'text', text: prompt }));
    }
    const agent = m % 4 === 0 ? 'plan' : 'build';
    const tokens = { total: 1800, input: 1200, output: 300, reasoning: 50, cache: { read: 200, write: 50 } };
    const data = {
      role: 'assistant', parentID: `usr_${s}`, mode: agent, agent, path: { cwd: directory, root: directory }, cost: 0.0015, tokens,
      modelID: m % 2 ? 'claude-sonnet-4-5' : 'gpt-5', providerID: m % 2 ? 'anthropic' : 'openai', time: { created: at, completed: at + 4000 }, finish: 'tool-calls',
    };
    insertMessage.run(messageId, id, at, at + 4000, JSON.stringify(data));
    const command = commits(m) ? `git add -A && git commit -m "change ${m}"` : `ls -la src/${m}`;
    const hash = printed.get(`${s}/${m}`) ?? (s * 100 + m).toString(16).padStart(7, '0');
    const output = commits(m) ? `[main ${hash}] change ${m}\n 1 file changed` : plainOutput;
    const parts = [
      { type: 'step-start', snapshot: '4b825dc642cb6eb9a060e54bf8d69288fbee4904' },
      { type: 'tool', tool: 'bash', callID: `call_${s}_${m}`, state: { status: 'completed', input: { command, description: 'run' }, output, metadata: { output, exit: m % 7 === 6 ? 1 : 0, truncated: false }, title: command, time: { start: at + 100, end: at + 900 } } },
      { type: 'step-finish', reason: 'tool-calls', snapshot: '4b825dc642cb6eb9a060e54bf8d69288fbee4904', tokens, cost: data.cost },
    ];
    parts.forEach((part, p) => insertPart.run(`prt_${String(s).padStart(6, '0')}_${String(m).padStart(3, '0')}_${p}`, messageId, id, at, at, JSON.stringify(part)));
  }
});
for (let s = 0; s < SESSIONS; s += 1) writeSession(s);
db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
db.close();
console.log(JSON.stringify({ sessions: SESSIONS }));
