/**
 * The agent's name as FIGlet letters. Fonts are imported as modules and registered with figlet
 * by hand, so rendering never looks for `.flf` files on disk: that works under Node, inside the
 * Bun-compiled `opencode` binary and in a copied plugin folder alike.
 */
import figlet from 'figlet';
import cybermedium from 'figlet/fonts/Cybermedium';
import cybersmall from 'figlet/fonts/Cybersmall';
import mini from 'figlet/fonts/Mini';
import { fitEnd, toOneColumnText } from './terminal-text.js';

/** Fonts in the order they are tried: the sheet's own font first, then narrower ones. */
const BANNER_FONTS = [
  { name: 'Cybermedium', data: cybermedium },
  { name: 'Cybersmall', data: cybersmall },
  { name: 'Mini', data: mini },
] as const;

type BannerFont = (typeof BANNER_FONTS)[number]['name'];

/** The font the sheet prefers; the others are fallbacks for names too wide for it. */
export const PREFERRED_FONT: BannerFont = 'Cybermedium';

let fontsRegistered = false;

function registerFonts(): void {
  if (fontsRegistered) return;
  for (const font of BANNER_FONTS) figlet.parseFont(font.name, font.data);
  fontsRegistered = true;
}

/** FIGlet lines without trailing spaces and without the blank rows some fonts add below. */
function trimBanner(text: string): string[] {
  const lines = text.split('\n').map((line) => line.replace(/\s+$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  while (lines.length > 0 && lines[0] === '') lines.shift();
  return lines;
}

/** The name drawn in one font, as trimmed lines. */
export function renderInFont(name: string, font: BannerFont): string[] {
  registerFonts();
  return trimBanner(figlet.textSync(name, { font }));
}

/**
 * The name as banner lines at most `width` columns wide: Cybermedium, else a narrower font that
 * fits, else the plain name cut to fit. Only printable ASCII comes out.
 */
export function nameBanner(name: string, width: number): string[] {
  const text = toOneColumnText(name).trim();
  if (text === '') return [];
  // Every FIGlet letter is at least one column wide: a name longer than the width cannot fit in any
  // font, and drawing a long one only to throw it away is slow.
  if (text.length > width) return [fitEnd(text, width)];
  for (const font of BANNER_FONTS) {
    const lines = renderInFont(text, font.name).map(toOneColumnText);
    if (lines.length > 0 && lines.every((line) => line.length <= width)) return lines;
  }
  return [fitEnd(text, width)];
}
