import { CommanderError } from 'commander';
import { processIo, UsageError, type Io } from './io.js';
import { buildProgram } from './program.js';

// Commander's codes for "help or version shown": exit 0, not a usage error.
const INFORMATIONAL = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

// zod is loaded only when a command runs: checked by name so `--help` does not pay for it.
function isZodError(error: unknown): error is Error & { issues: unknown[] } {
  return error instanceof Error && error.name === 'ZodError' && 'issues' in error;
}

/** Maps a failure that escaped a command to its message and exit code (2 usage, 1 fatal). */
async function reportFailure(error: unknown, io: Io, argv: string[]): Promise<number> {
  if (error instanceof CommanderError) return INFORMATIONAL.has(error.code) ? 0 : 2;
  if (error instanceof UsageError || isZodError(error)) {
    const { z, ZodError } = await import('zod');
    const detail = error instanceof ZodError ? `invalid option: ${z.prettifyError(error).replace(/\n/g, ' ')}` : error.message;
    io.stderr.write(`crawler-factory: ${detail}\n(add --help for usage)\n`);
    return 2;
  }
  const { fatalBody, fatalExitCode, fatalLine } = await import('./report.js');
  if (argv.includes('--ndjson') || argv.includes('ndjson')) io.stdout.write(`${JSON.stringify({ type: 'error', fatal: true, ...fatalBody(error) })}\n`);
  io.stderr.write(fatalLine(error));
  return fatalExitCode(error);
}

/** Runs one CLI invocation over the given streams (the process's by default) and returns its exit code. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const result = { code: 0, ran: false };
  const program = buildProgram(io, result);
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return result.code;
  } catch (error) {
    return await reportFailure(error, io, argv);
  } finally {
    // Pooled keep-alive sockets would hold the process open until the servers close them (only a command fetched).
    if (result.ran) await (await import('../lib/index.js')).closeAgents();
  }
}
