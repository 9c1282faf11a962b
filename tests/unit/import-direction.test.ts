/**
 * The layering of src/ as DESIGN.md draws it, checked on the import statements themselves (type-only
 * and lazy imports included): no module imports itself back through others, and no arrow points up.
 * A new arrow against the layering fails here with the file and the import that breaks it.
 */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';

const SRC = path.join(process.cwd(), 'src');

interface Import {
  from: string;
  /** A file under src/ (without extension change: .ts), or a package name. */
  to: string;
  local: boolean;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;

function importsOf(file: string): Import[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: Import[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const spec = match[1] ?? match[2] ?? match[3] ?? '';
    const from = path.relative(SRC, file);
    if (spec.startsWith('.')) found.push({ from, to: path.relative(SRC, path.join(path.dirname(file), spec.replace(/\.js$/, '.ts'))), local: true });
    else found.push({ from, to: spec, local: false });
  }
  return found;
}

const imports = sourceFiles(SRC).flatMap(importsOf);
const under = (file: string, ...folders: string[]) => folders.some((folder) => file === `${folder}.ts` || file.startsWith(`${folder}/`));

/** Every import that breaks `rule`, as `from -> to`. */
function breaking(rule: (item: Import) => boolean): string[] {
  return imports.filter(rule).map((item) => `${item.from} -> ${item.to}`);
}

describe('import direction', () => {
  it('reads the imports it checks (a parser that found nothing would pass everything)', () => {
    expect(imports.length).toBeGreaterThan(500);
    expect(imports).toContainEqual({ from: 'core/tracking/service.ts', to: 'contract/recorder.ts', local: true });
  });

  it('has no import cycle between modules', () => {
    const graph = new Map<string, string[]>();
    for (const item of imports) if (item.local) graph.set(item.from, [...(graph.get(item.from) ?? []), item.to]);
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const trail: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      trail.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') cycles.push([...trail.slice(trail.indexOf(next)), next].join(' -> '));
        else if (!state.has(next)) visit(next);
      }
      trail.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it('keeps the contract free of imports: records, counters, the recorder and answers depend on nothing', () => {
    expect(breaking((item) => under(item.from, 'contract') && !(item.local && under(item.to, 'contract')))).toEqual([]);
  });

  it('keeps core host-agnostic: nothing in core imports an adapter, provisioning or an OpenCode package', () => {
    expect(breaking((item) => under(item.from, 'core') && (item.local ? under(item.to, 'cli', 'mcp', 'opencode', 'provisioning', 'adapters') : item.to.startsWith('@opencode-ai/')))).toEqual([]);
  });

  it('lets the store own persistence only: it imports no recorder, reader, search or answer', () => {
    expect(breaking((item) => item.local && under(item.from, 'core/store') && under(item.to, 'core/tracking', 'core/answers', 'core/report', 'core/projects', 'core/backfill', 'core/search'))).toEqual([]);
  });

  it('keeps the recorder below the readers: tracking imports no answer, report or backfill', () => {
    expect(breaking((item) => item.local && under(item.from, 'core/tracking') && under(item.to, 'core/answers', 'core/report', 'core/backfill'))).toEqual([]);
  });

  it('has answers read by surfaces only: nothing else in core imports core/answers', () => {
    expect(breaking((item) => item.local && under(item.from, 'core') && !under(item.from, 'core/answers') && under(item.to, 'core/answers'))).toEqual([]);
  });

  it('has one importer of lmdb (the store) and one of simple-git (core/projects/git.ts)', () => {
    expect(breaking((item) => !item.local && item.to === 'lmdb' && !under(item.from, 'core/store'))).toEqual([]);
    expect(breaking((item) => !item.local && item.to === 'simple-git' && item.from !== 'core/projects/git.ts')).toEqual([]);
  });

  it('keeps telemetry in one folder: only adapters/telemetry imports OpenTelemetry, and only lazily from the plugin', () => {
    expect(breaking((item) => !item.local && item.to.startsWith('@opentelemetry/') && !under(item.from, 'adapters/telemetry'))).toEqual([]);
    expect(imports.filter((item) => item.local && under(item.to, 'adapters/telemetry') && !under(item.from, 'adapters/telemetry')).map((item) => item.from)).toEqual(['opencode/plugin.ts']);
  });
});
