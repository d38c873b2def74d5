import { locDropsText } from '../../lib/index.js';
import { resolveWalkOptions } from '../../lib/index.js';
import { readInputs } from '../inputs.js';
import type { Io } from '../io.js';
import { walkOptionsFrom, type CommonFlags } from '../options.js';
import { fileSink, stdoutSink, type DataSink } from '../output.js';
import { runWalk, summaryLine, type OutputFormat, type WalkOutcome } from '../walk-run.js';
import { fatalExitCode } from '../report.js';
import { readValidatorsFile, writeValidatorsFile } from '../validators-file.js';

/** The flags of `walk`. */
export interface WalkFlags extends CommonFlags {
  format: OutputFormat;
  ndjson?: boolean;
  output?: string;
  summary?: boolean;
  validators?: string;
  full?: boolean;
}

/** Aborts the run on SIGINT/SIGTERM (exit 130) and on a closed stderr (exit 0); returns the cleanup. */
export function watchInterrupts(io: Io, controller: AbortController): { signalled: () => boolean; dispose: () => void } {
  let signalled = false;
  const onSignal = () => {
    signalled = true;
    controller.abort(new Error('interrupted'));
  };
  const onStderrError = (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') controller.abort(new Error('stderr closed'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  io.stderr.on('error', onStderrError);
  return {
    signalled: () => signalled,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      io.stderr.off('error', onStderrError);
    },
  };
}

/** Exit code of a finished walk: 130 after a signal, 2 for a refused argument, 1 for another fatal error, else 0. */
export function exitCodeOf(outcome: WalkOutcome, signalled: boolean): number {
  if (signalled) return 130;
  if (outcome.fatal === null) return 0;
  return fatalExitCode(outcome.fatal);
}

/** `crawler-factory walk <input...>`: page URLs (or entries as NDJSON, CSV, JSON) of sites, sitemaps or local files. */
export async function walkCommand(inputs: string[], flags: WalkFlags, io: Io): Promise<number> {
  const format: OutputFormat = flags.ndjson ? 'ndjson' : flags.format;
  const options = resolveWalkOptions(walkOptionsFrom(flags, io.env));
  // --full reads everything, and still writes what it learned for the next run.
  const previous = flags.validators === undefined || flags.full ? null : await readValidatorsFile(flags.validators);
  const sink: DataSink = flags.output === undefined ? stdoutSink(io.stdout) : await fileSink(flags.output);
  const controller = new AbortController();
  const watch = watchInterrupts(io, controller);
  let outcome: WalkOutcome | null = null;
  try {
    const display = { format, progress: flags.progress === true || io.stderrIsTTY, quiet: flags.quiet === true };
    const call = { ...options, signal: controller.signal, ...(previous === null ? {} : { previous }) };
    outcome = await runWalk(readInputs(inputs, io, flags.quiet), call, display, { ...io, sink });
  } finally {
    watch.dispose();
    const succeeded = outcome !== null && outcome.fatal === null && !watch.signalled();
    // Only a complete walk replaces the validators: one cut short (a closed pipe) has not seen every sitemap.
    const learned = succeeded && !sink.writer.isClosed && flags.validators !== undefined ? outcome?.validators : undefined;
    if (succeeded) await sink.commit();
    else await sink.discard();
    if (learned !== undefined && flags.validators !== undefined) await writeValidatorsFile(flags.validators, learned.toJSON());
  }
  if (!flags.quiet && (flags.summary || io.stderrIsTTY || watch.signalled()) && !io.stderr.destroyed) {
    io.stderr.write(summaryLine(outcome, flags.output ?? null));
  } else if (!flags.quiet && format !== 'ndjson' && outcome !== null && !io.stderr.destroyed) {
    // Without the summary line, dropped locs are still said, as errors are (NDJSON carries them in its summary).
    const drops = locDropsText(outcome.counts.drops);
    if (drops !== null) io.stderr.write(`crawler-factory: ${drops}\n`);
  }
  return exitCodeOf(outcome, watch.signalled());
}
