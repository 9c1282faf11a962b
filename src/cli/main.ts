#!/usr/bin/env node
/**
 * The `agent-tracker` bin: runs the CLI (src/cli/program.ts) and sets the exit code.
 * A reader that stops early (`agent-tracker report | head -1`) closes the pipe: that ends the
 * command quietly with exit 0, not with an EPIPE stack trace.
 */
import { endQuietlyOnClosedPipe } from './closed-pipe.js';
import { main } from './program.js';

endQuietlyOnClosedPipe(process.stdout);
endQuietlyOnClosedPipe(process.stderr);
process.exitCode = await main(process.argv.slice(2));
