/**
 * The environment the tracker's own children start with (the check, the salvage, the history
 * import): the parent's, without NODE_EXTRA_CA_CERTS, which Node 20 parses at every start and which
 * a child that only reads and writes local files never needs.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { childRuntime } from '../../src/core/store/child-runtime.js';

const saved = process.env.NODE_EXTRA_CA_CERTS;
afterEach(() => {
  if (saved === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = saved;
});

describe('a child of the tracker', () => {
  it("starts without the extra CA file, with the rest of this process's environment, which stays as it was", () => {
    process.env.NODE_EXTRA_CA_CERTS = '/etc/ssl/certs/some-bundle.crt';
    process.env.AGENT_TRACKER_CHILD_ENV_PROBE = 'kept';
    try {
      const { command, env } = childRuntime();
      expect(command).toBe(process.execPath);
      expect('NODE_EXTRA_CA_CERTS' in env).toBe(false);
      expect(env.AGENT_TRACKER_CHILD_ENV_PROBE).toBe('kept');
      expect(env.PATH).toBe(process.env.PATH);
      expect(process.env.NODE_EXTRA_CA_CERTS).toBe('/etc/ssl/certs/some-bundle.crt');
    } finally {
      delete process.env.AGENT_TRACKER_CHILD_ENV_PROBE;
    }
  });
});
