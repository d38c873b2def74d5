import { estimateScope } from '../../lib/index.js';
import { resolveInput } from '../inputs.js';
import type { Io } from '../io.js';
import { intFlag, walkOptionsFrom, type CommonFlags } from '../options.js';
import { LineWriter } from '../output.js';

/** Shortest time budget accepted (`--budget`): below it a probe or slice does nothing useful. */
export const MIN_BUDGET_MS = 250;

/** `crawler-factory estimate <rootUrl>`: the ScopeEstimate as pretty JSON (one line with --ndjson). */
export async function estimateCommand([raw = '']: string[], flags: CommonFlags & { budget?: string; ndjson?: boolean }, io: Io): Promise<number> {
  const rootUrl = resolveInput(raw, io, flags.quiet).url;
  const budgetMs = intFlag('budget', flags.budget, MIN_BUDGET_MS, 600_000);
  const estimate = await estimateScope(rootUrl, { ...walkOptionsFrom(flags, io.env), ...(budgetMs === undefined ? {} : { budgetMs }) });
  await new LineWriter(io.stdout).lines([flags.ndjson ? JSON.stringify(estimate) : JSON.stringify(estimate, null, 2)]);
  return 0;
}
