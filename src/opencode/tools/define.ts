/**
 * `defineTool`: the plugin's tool definitions, with argument schemas built on first read.
 *
 * OpenCode takes the `tool` map when the plugin starts but reads each tool's `args` only when it first
 * lists the tools (observed with opencode 1.18.33: at the first prompt or tool listing, not at instance
 * start). The host only checks that each value is a zod schema (`"_zod" in value`), wraps them with its
 * own zod, and reads each argument's `description` property for the JSON schema the model sees (a
 * description kept only in a zod registry of ours never reaches it: the host's zod reads its own).
 *
 * OpenCode 1.18.33 does not hold the arguments to the schema: a number where text is asked for reaches
 * `execute` as it is (seen with the real binary). So every call is checked here first, and a bad
 * argument is refused with a line that names it, never a TypeError from deep inside a tool.
 *
 * The schemas are made with zod's mini build, which the plugin bundle carries with only the few
 * functions used here (about 18 KB): under OpenCode's Bun that takes about 5 ms of CPU, where loading
 * zod's full build from node_modules took about 30 ms in every session (docs/PERFORMANCE.md,
 * twenty-second pass).
 */
import type { ToolContext, ToolDefinition, ToolResult } from '@opencode-ai/plugin/tool';
import { enum as oneOf, looseObject, number, optional, safeParse, string } from 'zod/mini';
import { InputError } from '../../core/validation.js';
import type * as z from 'zod/mini';

/** A tool's arguments: zod schemas by name, each with its description. */
type Shape = Readonly<Record<string, z.core.$ZodType & { readonly description: string }>>;

/** `schema`, carrying `description` where the host reads it. */
function described<T extends z.ZodMiniType>(schema: T, description: string): T & { readonly description: string } {
  return Object.defineProperty(schema, 'description', { value: description }) as T & { readonly description: string };
}

/** The kinds of argument the tools take, each with the description the model reads. */
const argument = {
  text: (description: string) => described(string(), description),
  number: (description: string) => described(number(), description),
  optionalText: (description: string) => described(optional(string()), description),
  optionalNumber: (description: string) => described(optional(number()), description),
  optionalChoice: <const T extends readonly [string, ...string[]]>(values: T, description: string) => described(optional(oneOf(values)), description),
};

type ArgumentKinds = typeof argument;

/** What an argument's JSON type is called in a refusal. */
const KIND_NAMES: Readonly<Record<string, string>> = { string: 'text', number: 'a number', object: 'an object' };

/** A value the model sent, in a few words. */
function sent(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}...` : value}"`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** `args` without the arguments sent as null: some models send null for an optional argument they leave out. */
function withoutNulls(args: unknown): unknown {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return args;
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null));
}

/** What an argument of the kinds above must be, from zod's issue about it. */
function expectation(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_value') return `one of ${issue.values.join(', ')}`;
  if (issue.code === 'invalid_type') return KIND_NAMES[issue.expected] ?? issue.expected;
  return issue.message;
}

/** Why `args` do not fit `shape`, one line per argument at fault, each with what the argument is for. */
function argumentProblems(shape: Shape, args: unknown, issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.map((issue) => {
    const name = issue.path[0];
    if (typeof name !== 'string') return `the arguments must be ${KIND_NAMES.object}, got ${sent(args)}`;
    const value = (args as Record<string, unknown>)[name];
    const about = `(${(shape[name] as Shape[string]).description})`;
    return value === undefined ? `${name} is required ${about}` : `${name} must be ${expectation(issue)}, got ${sent(value)} ${about}`;
  });
  return [...new Set(lines)].join('; ');
}

/** Like `tool()` from `@opencode-ai/plugin`, with `args` given as a function of the argument kinds, called on the first read of `args`. */
export function defineTool<Args extends Shape>(spec: {
  description: string;
  args: (kinds: ArgumentKinds) => Args;
  execute(args: z.output<z.ZodMiniObject<Args>>, context: ToolContext): Promise<ToolResult>;
}): ToolDefinition {
  let args: Args | undefined;
  // Loose: an argument the schema does not name reaches the tool (grade-commit says that a userGrade sent is ignored).
  let schema: z.ZodMiniObject<Args, z.core.$loose> | undefined;
  const shape = (): Args => (args ??= spec.args(argument));
  return {
    description: spec.description,
    get args(): Args {
      return shape();
    },
    execute: (sentArgs: unknown, context: ToolContext) => {
      schema ??= looseObject(shape());
      const given = withoutNulls(sentArgs);
      const checked = safeParse(schema, given);
      if (!checked.success) return Promise.reject(new InputError(argumentProblems(shape(), given, checked.error.issues)));
      return spec.execute(checked.data, context);
    },
  } as ToolDefinition;
}
