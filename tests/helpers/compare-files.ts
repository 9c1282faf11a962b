/** Comparisons of files before and after: byte for byte, or everything but some JSON values. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';

/** Every file below a folder with its sha256 (a link: its target), so "nothing changed" is checkable byte for byte. */
export function treeHash(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      // A link is compared by where it points (its target may be outside the folder, or a folder).
      else if (entry.isSymbolicLink()) files[path.relative(dir, full)] = `link:${fs.readlinkSync(full)}`;
      else files[path.relative(dir, full)] = crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex');
    }
  };
  walk(dir);
  return files;
}

/** The text with the values at the given JSON paths cut out, to compare everything else. */
export function withoutValues(text: string, paths: (string | number)[][]): string {
  const tree = parseTree(text);
  if (!tree) throw new Error('does not parse');
  const spans = paths
    .map((jsonPath) => findNodeAtLocation(tree, jsonPath))
    .filter((node) => node !== undefined)
    .map((node) => [node.offset, node.offset + node.length] as const)
    .sort((a, b) => b[0] - a[0]);
  let result = text;
  for (const [start, end] of spans) result = `${result.slice(0, start)}<VALUE>${result.slice(end)}`;
  return result;
}
