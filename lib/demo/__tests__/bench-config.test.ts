import { describe, expect, it } from 'vitest';
import { readConfig } from '../../../bench/harness/config.js';

describe('bench results path', () => {
  it('writes tracked results only with --save', () => {
    expect(readConfig(['--quick']).save).toBe(false);
    expect(readConfig(['--quick', '--save']).save).toBe(true);
  });
});
