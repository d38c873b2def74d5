import { RULES, type RuleId } from './rules.js';
import type { Finding, Tally } from './finding.js';

/** A finding of `rule`, its severity from the catalogue. */
export function finding(rule: RuleId, message: string, count = 1, examples: string[] = []): Finding {
  return { rule, severity: RULES[rule].severity, message, count, examples: examples.slice(0, 3) };
}

/** The finding a tally adds up to, or nothing when it counted none. `message` gets the count. */
export function tallied(rule: RuleId, tally: Tally, message: (count: number) => string): Finding[] {
  return tally.count === 0 ? [] : [finding(rule, message(tally.count), tally.count, tally.examples)];
}
