import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FilterOptionsSchema } from '../filter-options.js';
import { compilePattern, isRegexLiteral, patternProblem } from '../url-pattern.js';

// The time one match may take: linear engines answer these in microseconds; V8 took 27 s and minutes on them.
const MATCH_BUDGET_MS = 200;

function timed(test: (text: string) => boolean, text: string): { matched: boolean; ms: number } {
  const started = performance.now();
  const matched = test(text);
  return { matched, ms: performance.now() - started };
}

describe('URL patterns match in time linear in the URL', () => {
  it('answers the catastrophic regex of the issue at once on a 2,048-character URL', () => {
    const url = `https://x.test/${'a'.repeat(2_030)}`;
    const { matched, ms } = timed(compilePattern('/(.+)+\\x01/'), url);
    expect(matched).toBe(false);
    expect(ms).toBeLessThan(MATCH_BUDGET_MS);
  });

  it('answers the catastrophic glob of the issue at once, on 40 characters and on 2,000', () => {
    const glob = compilePattern('/*a*a*a*a*a*a*a*a*a*a*a*a!');
    for (const length of [40, 2_000]) {
      const { matched, ms } = timed(glob, `/${'a'.repeat(length)}`);
      expect(matched).toBe(false);
      expect(ms).toBeLessThan(MATCH_BUDGET_MS);
    }
  });

  it('keeps glob semantics: ** crosses folders, * and ? do not, everything else is literal', () => {
    expect(compilePattern('/blog/*')('/blog/a')).toBe(true);
    expect(compilePattern('/blog/*')('/blog/2024/a')).toBe(false);
    expect(compilePattern('/blog/**')('/blog/2024/a')).toBe(true);
    expect(compilePattern('/p?.html')('/p1.html')).toBe(true);
    expect(compilePattern('/p?.html')('/p/.html')).toBe(false);
    expect(compilePattern('/a+b(c).html')('/a+b(c).html')).toBe(true);
    expect(compilePattern('/a+b(c).html')('/aab(c)xhtml')).toBe(false);
  });

  it('keeps regex semantics: searched anywhere, i m s flags honoured', () => {
    expect(compilePattern('/draft-\\d+/')('https://x.test/blog/draft-12/x')).toBe(true);
    expect(compilePattern('/BLOG/i')('https://x.test/blog/')).toBe(true);
    expect(compilePattern('/BLOG/')('https://x.test/blog/')).toBe(false);
  });

  it('matches globs as V8 did on every generated case', () => {
    const segment = fc.constantFrom('a', 'b', '/', '*', '**', '?', '.');
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), fc.stringMatching(/^[ab/.]{0,12}$/), (parts, text) => {
        const glob = `/${parts.join('')}`;
        fc.pre(!isRegexLiteral(glob)); // `/.../` is a regex literal, not a glob
        const backtracking = new RegExp(
          `^${glob.replace(/\*\*|\*|\?|[.]/g, (token) => ({ '**': '.*', '*': '[^/]*', '?': '[^/]', '.': '\\.' })[token] ?? token)}$`,
        );
        expect(compilePattern(glob)(`/${text}`)).toBe(backtracking.test(`/${text}`));
      }),
    );
  });

  it('refuses backreferences and lookaround with the reason, at the schema', () => {
    expect(patternProblem('/(a)\\1/')).toMatch(/not a linear-time/);
    expect(patternProblem('/a(?=b)/')).toMatch(/lookaround/);
    expect(patternProblem('/blog/**')).toBeNull();
    const parsed = FilterOptionsSchema.safeParse({ include: ['/(?<=x)y/'] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/not a linear-time \/regular expression\//);
  });
});
