import { describe, expect, it } from 'vitest';
import { readConfig } from '../../../bench/harness/config.js';

describe('bench results path', () => {
  it('writes tracked results only with --save', () => {
    expect(readConfig(['--quick']).save).toBe(false);
    expect(readConfig(['--quick', '--save']).save).toBe(true);
  });
});

describe('bench trees', () => {
  it('runs only the trees named by --trees, and refuses an unknown one', () => {
    expect(readConfig(['--trees', '1M', '--only', 'engine,crawlee']).scenarios.map((scenario) => scenario.name)).toEqual(['1M']);
    expect(readConfig([]).scenarios.map((scenario) => scenario.name)).toEqual(['1M', '5M']);
    expect(() => readConfig(['--trees', '2M'])).toThrow(/unknown tree/);
  });
});
