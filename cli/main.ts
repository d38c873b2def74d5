import { CommanderError } from 'commander';
import { ZodError, z } from 'zod';
import { isFactoryError } from '../lib/factory/errors.js';
import { closeAgents } from '../lib/factory/fetch/index.js';
import { sendLogsTo, setLogLevel } from '../lib/utils/logger.js';
import { processIo, UsageError, type Io } from './io.js';
import { buildProgram } from './program.js';
import { fatalBody, hint } from './walk-run.js';

// Commander's codes for "help or version shown": exit 0, not a usage error.
const INFORMATIONAL = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

/** Logs on stderr (stdout carries data): silent unless -v, LOG_LEVEL or FACTORY_LOG_LEVEL. */
function configureLogs(argv: string[], env: NodeJS.ProcessEnv): void {
  sendLogsTo('stderr');
  const verbose = argv.includes('-v') || argv.includes('--verbose');
  // Child failures are printed as data (stderr lines or NDJSON events): logs are for -v.
  setLogLevel(env.FACTORY_LOG_LEVEL ?? env.LOG_LEVEL ?? (verbose ? 'info' : 'error'));
}

/** Maps a failure that escaped a command to its message and exit code (2 usage, 1 fatal). */
function reportFailure(error: unknown, io: Io, argv: string[]): number {
  if (error instanceof CommanderError) return INFORMATIONAL.has(error.code) ? 0 : 2;
  if (error instanceof UsageError || error instanceof ZodError) {
    const detail = error instanceof ZodError ? `invalid option: ${z.prettifyError(error).replace(/\n/g, ' ')}` : error.message;
    io.stderr.write(`crawler-factory: ${detail}\n(add --help for usage)\n`);
    return 2;
  }
  const body = fatalBody(error);
  if (argv.includes('--ndjson') || argv.includes('ndjson')) io.stdout.write(`${JSON.stringify({ type: 'error', fatal: true, ...body })}\n`);
  io.stderr.write(`crawler-factory: ${body.kind}: ${body.message}${body.url ? ` (${body.url})` : ''}${hint(body.kind)}\n`);
  // A refused argument (a URL that is not http(s), a malformed job id) is a usage error.
  return isFactoryError(error) && (error.kind === 'invalid_url' || error.kind === 'bad_request') ? 2 : 1;
}

/** Runs one CLI invocation over the given streams (the process's by default) and returns its exit code. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  configureLogs(argv, io.env);
  const result = { code: 0 };
  const program = buildProgram(io, result);
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return result.code;
  } catch (error) {
    return reportFailure(error, io, argv);
  } finally {
    // Pooled keep-alive sockets would hold the process open until the servers close them.
    await closeAgents();
  }
}
