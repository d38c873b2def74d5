import { MAX_EXAMPLES, SEVERITIES, type Finding } from '../../core/finding.js';

export { FindingSchema, MAX_EXAMPLES, SEVERITIES, SeveritySchema, type Finding, type Severity } from '../../core/finding.js';

/** Counts the occurrences of one rule and keeps its first examples. */
export class Tally {
  count = 0;
  readonly examples: string[] = [];

  add(example: string | null = null, times = 1): void {
    this.count += times;
    if (example !== null && this.examples.length < MAX_EXAMPLES && !this.examples.includes(example)) this.examples.push(example);
  }
}

/** Findings in the order a reader wants them: errors first, then warnings, then notices; by rule within each. */
export function bySeverity(findings: Finding[]): Finding[] {
  const rank = (finding: Finding) => SEVERITIES.indexOf(finding.severity);
  return [...findings].sort((a, b) => rank(a) - rank(b) || a.rule.localeCompare(b.rule));
}
