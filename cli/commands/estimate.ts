import { intFlag, parseCommandArgs, requirePositional, walkOptionsFrom } from '../args.js';
import { LineWriter } from '../output.js';
import { estimateScope } from '../../lib/factory/scope/scope-estimator.js';

const ESTIMATE_FLAGS = {
  budget: { type: 'string' },
} as const;

/** `crawler-factory estimate <rootUrl>`: the ScopeEstimate as pretty JSON (one line with --ndjson). */
export async function estimateCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, ESTIMATE_FLAGS);
  const rootUrl = requirePositional(positionals, 'rootUrl');
  const budgetMs = intFlag('budget', values.budget, 1);
  const estimate = await estimateScope(rootUrl, { ...walkOptionsFrom(values), ...(budgetMs === undefined ? {} : { budgetMs }) });
  await new LineWriter().lines([values.ndjson ? JSON.stringify(estimate) : JSON.stringify(estimate, null, 2)]);
  return 0;
}
