/** What the CLI does when the reader of its output goes away (`| head -1`): nothing more to say. */

/** Exit code when the reader closed the pipe: the reader got what it asked for. */
export const CLOSED_PIPE_EXIT_CODE = 0;

/** Ends the process quietly when `stream`'s reader has closed it; any other write error still surfaces. */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream, exit: (code: number) => void = (code) => process.exit(code)): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') {
      exit(CLOSED_PIPE_EXIT_CODE);
      return;
    }
    throw error;
  });
}
