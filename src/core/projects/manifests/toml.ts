/** Reading TOML manifests (Cargo.toml, pyproject.toml) with a real TOML parser. */
import { parse } from 'smol-toml';

/** A TOML manifest's top-level table, or undefined when the text is not valid TOML. */
export function parseTomlObject(text: string): Record<string, unknown> | undefined {
  try {
    return parse(text);
  } catch {
    return undefined;
  }
}
