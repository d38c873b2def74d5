import { locDropsText } from '../lib/index.js';
import { walkLimits, walkSitemapEvents, walkUrlEvents, type WalkCallOptions, type WalkEvent, type SitemapEntry, ValidatorLog } from '../lib/index.js';
import type { Input } from './inputs.js';
import type { Io } from './io.js';
import { JSON_ENTRY_LEAD, NDJSON_URL_LEAD, writeEntryJson } from './entry-json.js';
import { writeCsvRow } from './entry-csv.js';
import { CSV_HEADER, type DataSink } from './output.js';
import { ascii, RowBytes } from './row-bytes.js';
import { childrenToRead, ProgressLine, RunCounts } from './progress.js';
import { fatalBody, fatalLine } from './report.js';

/** `--format`: plain URLs, NDJSON events, CSV rows or one JSON array of entries. */
export type OutputFormat = 'lines' | 'ndjson' | 'csv' | 'json';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['lines', 'ndjson', 'csv', 'json'];

/** How a walk is shown. */
export interface WalkDisplay {
  format: OutputFormat;
  progress: boolean;
  quiet: boolean;
  /** Count only, print no data (the demo's summary mode). */
  discard?: boolean;
}

/** What a run learned: counts, the validators for the next run, the first fatal error, and whether it was cut short (signal, closed pipe). */
export interface WalkOutcome {
  counts: RunCounts;
  validators: ValidatorLog;
  fatal: unknown;
  interrupted: boolean;
}

/** Turns events into output bytes for one format; `open`/`close` frame the whole run (CSV header, JSON brackets). */
class Formatter {
  private first = true;
  private readonly rows = new RowBytes();

  constructor(private readonly format: OutputFormat) {}

  open(): string {
    if (this.format === 'csv') return `${CSV_HEADER}\r\n`;
    return this.format === 'json' ? '[' : '';
  }

  close(): string {
    return this.format === 'json' ? (this.first ? ']\n' : '\n]\n') : '';
  }

  event(event: WalkEvent<unknown>): string | Buffer {
    if (this.format === 'ndjson' && event.type !== 'batch') return `${JSON.stringify(event)}\n`;
    if (event.type !== 'batch' || event.items.length === 0) return '';
    if (this.format === 'lines') return `${(event.items as string[]).join('\n')}\n`;
    const rows = this.rows;
    const entries = event.items as SitemapEntry[];
    if (this.format === 'ndjson') {
      // What stringifying `{ type: 'url', ...entry }` writes, without copying every entry into a new object first.
      rows.batch(entries, writeNdjsonRow);
    } else if (this.format === 'csv') rows.batch(entries, writeCsvRow);
    else {
      const opening = this.first ? LF_BYTES : COMMA_LF;
      this.first = false;
      rows.batch(entries, (rows, entry, index) => {
        rows.bytes(index === 0 ? opening : COMMA_LF);
        writeEntryJson(rows, entry, JSON_ENTRY_LEAD);
      });
    }
    return rows.take();
  }

  /** Takes back a chunk `event` returned, once the stream has written it: its buffer holds later rows. */
  written(chunk: Buffer): void {
    this.rows.recycle(chunk);
  }

  fatal(error: unknown): string {
    return this.format === 'ndjson' ? `${JSON.stringify({ type: 'error', fatal: true, ...fatalBody(error) })}\n` : '';
  }
}

const LF = 0x0a;
const LF_BYTES = ascii('\n');
const COMMA_LF = ascii(',\n');

function writeNdjsonRow(rows: RowBytes, entry: SitemapEntry): void {
  writeEntryJson(rows, entry, NDJSON_URL_LEAD);
  rows.byte(LF);
}

function eventsOf(format: OutputFormat, input: Input, options: WalkCallOptions): AsyncGenerator<WalkEvent<unknown>> {
  const call = { ...options, readLocalFiles: input.local };
  return format === 'lines' ? walkUrlEvents(input.url, call) : walkSitemapEvents(input.url, call);
}

// The limits that decide which children will be read; options the walk itself refuses (it reports that) cap nothing.
function limitsForProgress(options: WalkCallOptions): { maxChildrenPerIndex: number; maxDepth: number } {
  try {
    return walkLimits(options);
  } catch {
    return { maxChildrenPerIndex: Number.POSITIVE_INFINITY, maxDepth: Number.POSITIVE_INFINITY };
  }
}

/** Walks every input in turn into the sink; child errors go to stderr as lines (or into NDJSON). */
export async function runWalk(
  inputs: AsyncIterable<Input>,
  options: WalkCallOptions & { signal: AbortSignal },
  display: WalkDisplay,
  io: Io & { sink: DataSink },
): Promise<WalkOutcome> {
  const { writer } = io.sink;
  const formatter = new Formatter(display.format);
  const progress = new ProgressLine(io.stderr, display.progress && !display.quiet);
  const outcome: WalkOutcome = { counts: new RunCounts(), validators: new ValidatorLog(), fatal: null, interrupted: false };
  const counts = outcome.counts;
  const limits = limitsForProgress(options);
  const walkOptions: WalkCallOptions = { ...options, onFound: (items) => (counts.found += items) };
  if (!display.discard) await writer.raw(formatter.open());
  progress.start(counts);
  for await (const input of inputs) {
    try {
      for await (const event of eventsOf(display.format, input, walkOptions)) {
        if (event.type === 'batch') counts.urls += event.items.length;
        if (event.type === 'cycle') counts.sitemapSkipped();
        if (event.type === 'sitemap') {
          counts.sitemapRead(childrenToRead(event, limits), event.unchanged, event.drops);
          outcome.validators.record(event);
        }
        if (event.type === 'limit' && display.format !== 'ndjson' && !display.quiet) {
          progress.clear();
          io.stderr.write(`limit: ${event.message}\n`);
        }
        if (event.type === 'error') {
          counts.errors += 1;
          if (display.format !== 'ndjson' && !display.quiet) {
            progress.clear();
            io.stderr.write(`error ${event.kind}${event.url === null ? '' : ` ${event.url}`}: ${event.message}\n`);
          }
        }
        if (!display.discard) {
          const chunk = formatter.event(event);
          await writer.raw(chunk, typeof chunk === 'string' ? undefined : () => formatter.written(chunk));
        }
        if (writer.isClosed) break;
        progress.update(counts);
      }
    } catch (error) {
      if (options.signal.aborted) {
        outcome.interrupted = true;
        break;
      }
      outcome.fatal ??= error;
      if (!display.discard) await writer.raw(formatter.fatal(error));
      progress.clear();
      io.stderr.write(fatalLine(error));
    }
    if (writer.isClosed || options.signal.aborted) break;
  }
  if (!display.discard && !writer.isClosed) await writer.raw(formatter.close());
  const failure = writer.failure;
  if (failure !== null) {
    outcome.fatal ??= failure;
    progress.clear();
    io.stderr.write(fatalLine(failure));
  }
  // Found but not written (a closed pipe, an interruption, the URL limit): the last line says what was written.
  counts.found = counts.urls;
  progress.done(counts);
  return outcome;
}

/** `walked 1,500 URLs from 2 sitemaps (1 error) in 0.4s`, then the locs dropped, by reason, with an example. */
export function summaryLine(outcome: WalkOutcome, target: string | null): string {
  const { counts } = outcome;
  const errors = `${counts.errors} error${counts.errors === 1 ? '' : 's'}`;
  const where = target === null ? '' : ` -> ${target}`;
  const cut = outcome.interrupted ? ' (interrupted)' : '';
  const unchanged = counts.unchanged > 0 ? `, ${counts.unchanged} unchanged` : '';
  // Locs the sitemaps listed but no output holds (relative, malformed, too long...): never dropped in silence.
  const drops = locDropsText(counts.drops);
  const dropped = drops === null ? '' : `; ${drops}`;
  return `walked ${counts.urls.toLocaleString('en')} URLs from ${counts.sitemapsDone} sitemaps (${errors}${unchanged}) in ${(counts.elapsedMs() / 1000).toFixed(1)}s${where}${cut}${dropped}\n`;
}
