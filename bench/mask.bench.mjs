/**
 * Output masking: 1 MiB of tool output against 200 secret values (with their base64 and
 * URL-encoded forms), against a plain `indexOf` over the same text measured in the same run.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { SecretMasker } from '../dist/core/secrets/mask.js';
import { median } from './support.mjs';

const MIB = 1024 * 1024;
const VALUES = 200;

export default async function run({ quick }) {
  const rounds = quick ? 15 : 60;
  const sources = Array.from({ length: VALUES }, (_, i) => ({ key: `KEY_${i}`, value: randomBytes(18).toString('base64'), file: '.env' }));
  const lines = [];
  let length = 0;
  for (let i = 0; length < MIB; i += 1) {
    const line = `${i}: lorem ipsum dolor sit amet, consectetur adipiscing elit${i % 97 === 0 ? ` ${sources[i % VALUES].value}` : ''}\n`;
    lines.push(line);
    length += line.length;
  }
  const text = lines.join('');
  const masker = new SecretMasker(sources);
  const maskTimes = [];
  const scanTimes = [];
  for (let round = 0; round < rounds; round += 1) {
    let start = performance.now();
    const masked = masker.mask(text);
    maskTimes.push(performance.now() - start);
    if (masked.includes(sources[0].value)) throw new Error('a secret survived masking');
    start = performance.now();
    text.indexOf('\u0000not-there');
    scanTimes.push(performance.now() - start);
  }
  const startBuild = performance.now();
  new SecretMasker(sources);
  const build = performance.now() - startBuild;
  const value = median(maskTimes);
  return [
    { name: 'mask 1 MiB, 200 values', metric: 'median', value, unit: 'ms', baseline: median(scanTimes), target: 5, pass: value <= 5 },
    { name: 'build the masker, 200 values', metric: 'once', value: build, unit: 'ms' },
  ];
}
