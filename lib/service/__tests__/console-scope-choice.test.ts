// The console's sub-tree check (public/scope-choice.js, plain browser JavaScript) in-process: which groups it offers,
// and when a choice is said to keep nothing of what the estimate read.
import { describe, expect, it } from 'vitest';
import type { ScopeEstimate } from '../../core/types.js';

interface ScopeChoice {
  groupChoices(estimate: Pick<ScopeEstimate, 'pathGroups'>): Array<{ prefix: string; count: number }>;
  scopeWarning(filter: { pathPrefixes: string[]; locales: string[] } | undefined, estimate: Pick<ScopeEstimate, 'pathGroups'> | null): string | null;
}
// A path the type checker does not follow: the module is the browser's, untyped.
const modulePath = new URL('../../../public/scope-choice.js', import.meta.url).href;
const { groupChoices, scopeWarning } = (await import(modulePath)) as ScopeChoice;

const group = (prefix: string, count: number) => ({ prefix, count, samples: [], locales: [] });
const estimate = { pathGroups: [group('/docs/*', 150), group('/blog/*', 49), group('/', 1), group('other', 2)] };
const subTree = (...pathPrefixes: string[]) => ({ pathPrefixes, locales: [] });

describe('the console sub-tree check', () => {
  it('offers every group but other, as the filter takes them', () => {
    expect(groupChoices(estimate)).toEqual([
      { prefix: '/docs/', count: 150 },
      { prefix: '/blog/', count: 49 },
      { prefix: '/', count: 1 },
    ]);
  });

  it('says when a choice keeps nothing, under 1%, or names a group the estimate did not read', () => {
    expect(scopeWarning(subTree('/dcos/'), estimate)).toContain('/dcos/ keeps none of the 202 URLs the estimate read');
    expect(scopeWarning(subTree('/'), estimate)).toContain('keeps 1 of the 202 URLs the estimate read (under 1%)');
    expect(scopeWarning(subTree('/docs/', '/dcos/'), estimate)).toContain('/dcos/ is not among the groups the estimate read');
  });

  it('lets a choice the sample supports through, and has nothing to say without a sub-tree or an estimate', () => {
    expect(scopeWarning(subTree('/docs/'), estimate)).toBeNull();
    expect(scopeWarning({ pathPrefixes: [], locales: ['fr'] }, estimate)).toBeNull();
    expect(scopeWarning(undefined, estimate)).toBeNull();
    expect(scopeWarning(subTree('/dcos/'), null)).toBeNull();
  });
});
