import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, DEFAULT_MAX_DATABASE_SIZE, MIB, opencodeConfigDir, resolveConfig } from '../../src/core/config.js';
import { DEFAULT_RULES } from '../../src/core/rules.js';

const home = path.join(os.tmpdir(), 'some-home');

describe('resolveConfig', () => {
  it('puts the database in $XDG_CONFIG_HOME/opencode by default', () => {
    const config = resolveConfig({ env: { XDG_CONFIG_HOME: '/xdg' }, home });
    expect(config.databasePath).toBe('/xdg/opencode/agent-tracker.lmdb');
  });

  it('falls back to ~/.config/opencode from the home folder, never a literal ~', () => {
    const config = resolveConfig({ env: {}, home });
    expect(config.databasePath).toBe(path.join(home, '.config', 'opencode', 'agent-tracker.lmdb'));
    expect(config.databasePath).not.toContain('~');
  });

  it('ignores a relative XDG_CONFIG_HOME, as the XDG spec requires', () => {
    expect(opencodeConfigDir({ XDG_CONFIG_HOME: 'relative' }, home)).toBe(path.join(home, '.config', 'opencode'));
  });

  it('resolves a relative databasePath against home, and ~/ too', () => {
    expect(resolveConfig({ options: { databasePath: 'data/t.lmdb' }, env: {}, home }).databasePath).toBe(path.join(home, 'data', 't.lmdb'));
    expect(resolveConfig({ options: { databasePath: '~/t.lmdb' }, env: {}, home }).databasePath).toBe(path.join(home, 't.lmdb'));
    expect(resolveConfig({ options: { databasePath: '/abs/t.lmdb' }, env: {}, home }).databasePath).toBe('/abs/t.lmdb');
  });

  it('lets AGENT_TRACKER_DB_PATH win over the option', () => {
    const config = resolveConfig({ options: { databasePath: '/option.lmdb' }, env: { AGENT_TRACKER_DB_PATH: '/env.lmdb' }, home });
    expect(config.databasePath).toBe('/env.lmdb');
  });

  it('defaults maxDatabaseSize to 512 MiB and accepts the bounds', () => {
    expect(resolveConfig({ env: {}, home }).maxDatabaseSize).toBe(DEFAULT_MAX_DATABASE_SIZE);
    expect(DEFAULT_MAX_DATABASE_SIZE).toBe(512 * MIB);
    expect(resolveConfig({ options: { maxDatabaseSize: MIB }, env: {}, home }).maxDatabaseSize).toBe(MIB);
    expect(resolveConfig({ options: { maxDatabaseSize: 2048 * MIB }, env: {}, home }).maxDatabaseSize).toBe(2048 * MIB);
  });

  it.each([0, MIB - 1, 2048 * MIB + 1, 5 * 1024 * MIB, -1, Number.NaN, '512'])(
    'rejects maxDatabaseSize %p with an error naming the allowed range',
    (value) => {
      expect(() => resolveConfig({ options: { maxDatabaseSize: value }, env: {}, home })).toThrow(ConfigError);
      expect(() => resolveConfig({ options: { maxDatabaseSize: value }, env: {}, home })).toThrow(/between 1 MiB .* and 2 GiB/);
    },
  );

  it('rejects unknown options and bad rule overrides clearly', () => {
    expect(() => resolveConfig({ options: { databasePth: '/x' }, env: {}, home })).toThrow(/unknown option "databasePth"/);
    expect(() => resolveConfig({ options: { rules: { xpPerComit: 3 } }, env: {}, home })).toThrow(/unknown scoring rule "xpPerComit"/);
    expect(() => resolveConfig({ options: { rules: { xpPerCommit: -3 } }, env: {}, home })).toThrow(/must be a number from 0 to/);
    expect(() => resolveConfig({ options: { haltBlocksTools: 'no' }, env: {}, home })).toThrow(/true or false/);
  });

  it('bounds every numeric option: 1e300 is refused, naming the range', () => {
    expect(() => resolveConfig({ options: { flushMaxAgeMs: 1e300 }, env: {}, home })).toThrow(/option "flushMaxAgeMs" must be a whole number from 1 to 86400000/);
    expect(() => resolveConfig({ options: { flushMaxMutations: 1e300 }, env: {}, home })).toThrow(/option "flushMaxMutations" must be a whole number from 1 to 1000000/);
    expect(() => resolveConfig({ options: { maxDatabaseSize: 1e300 }, env: {}, home })).toThrow(/maxDatabaseSize must be between/);
    expect(() => resolveConfig({ options: { rules: { xpPerToolCall: 1e300 } }, env: {}, home })).toThrow(/must be a number from 0 to 1000000/);
    expect(resolveConfig({ options: { flushMaxAgeMs: 86_400_000, flushMaxMutations: 1_000_000 }, env: {}, home })).toMatchObject({ flushMaxAgeMs: 86_400_000, flushMaxMutations: 1_000_000 });
  });

  it('merges rule overrides into the defaults', () => {
    const config = resolveConfig({ options: { rules: { xpPerCommit: 7 } }, env: {}, home });
    expect(config.rules).toEqual({ ...DEFAULT_RULES, xpPerCommit: 7 });
  });
});
