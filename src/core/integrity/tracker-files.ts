/**
 * Whether a tool call edits what configures or instructs the tracker and the agents: an OpenCode
 * config file, the provisioned agents/skills/commands/plugins in the config folder, or the tracker's
 * section of AGENTS.md. Such edits are counted against the session (`trackerFileEdits`).
 */
import path from 'node:path';

/** Tools whose `filePath` argument names a file they change. */
const EDITING_TOOLS: ReadonlySet<string> = new Set(['edit', 'write', 'patch', 'multiedit']);
/** Sub-folders of the OpenCode config folder that setup provisions or OpenCode loads code from. */
const PROVISIONED_FOLDERS = ['agents', 'agent', 'skills', 'skill', 'command', 'commands', 'plugins', 'plugin'];
const CONFIG_FILE = /(^|\/)(opencode\.jsonc?|\.opencode\/[^\s'"]+)$/;
/** Marks the tracker's AGENTS.md section (see src/provisioning/agents-md.ts). */
const TRACKER_SECTION_MARK = 'opencode-agent-tracker';
/** Shell commands that change files. */
const WRITING_COMMAND = /(^|[\s;&|(])(rm|mv|cp|truncate|tee|ln|sed\s+-i|perl|python3?|node)(\s|$)|>/;
const SHELL_CONFIG_MENTION = /(opencode\.jsonc?|\.opencode\/|AGENTS\.md)/;

function stringArg(args: unknown, name: string): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const value = (args as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** Whether a file is an OpenCode config file or lies in a provisioned folder of `configDir` (resolved once: the check runs on every edit). */
function managedPathTest(configDir: string): (file: string) => boolean {
  const folder = path.resolve(configDir);
  const inside = folder.endsWith(path.sep) ? folder : `${folder}${path.sep}`;
  return (file) => {
    const absolute = path.resolve(file);
    if (CONFIG_FILE.test(absolute.replace(/\\/g, '/'))) return true;
    // On POSIX, what path.relative(folder, absolute) gives for a path inside the folder, without resolving
    // both again; Windows compares paths without case, so there path.relative decides.
    const relative = path.sep === '/' ? (absolute.startsWith(inside) ? absolute.slice(inside.length) : '..') : path.relative(folder, absolute);
    if (relative.startsWith('..') || path.isAbsolute(relative)) return false;
    return relative === 'opencode.json' || relative === 'opencode.jsonc' || PROVISIONED_FOLDERS.includes(relative.split(path.sep)[0] ?? '');
  };
}

/**
 * Whether a tool call edits an OpenCode config, the provisioned agents/skills, or the tracker's
 * AGENTS.md section, for one config folder resolved once: the plugin runs it after every tool call.
 */
export function trackerFileEditCheck(configDir: string): (tool: string, args: unknown) => boolean {
  const isManaged = managedPathTest(configDir);
  return (tool, args) => {
    if (tool === 'bash') {
      const command = stringArg(args, 'command') ?? '';
      return SHELL_CONFIG_MENTION.test(command) && WRITING_COMMAND.test(command);
    }
    const file = EDITING_TOOLS.has(tool) ? stringArg(args, 'filePath') : undefined;
    if (!file) return false;
    if (path.basename(file) === 'AGENTS.md') {
      const touched = [stringArg(args, 'oldString'), stringArg(args, 'newString'), stringArg(args, 'content')].join('\n');
      return touched.includes(TRACKER_SECTION_MARK) || touched.includes('agent-tracker');
    }
    return isManaged(file);
  };
}
