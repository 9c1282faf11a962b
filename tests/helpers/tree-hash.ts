/** Every file below a folder with its sha256, so "nothing changed" is checkable byte for byte. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export function treeHash(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[path.relative(dir, full)] = crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex');
    }
  };
  walk(dir);
  return files;
}
