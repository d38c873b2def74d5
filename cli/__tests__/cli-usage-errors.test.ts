import { describe, expect, it } from 'vitest';
import { runMain } from '../../test/helpers/run-cli.js';

describe('arguments refused as usage errors (exit 2, a message on stderr)', () => {
  it.each([
    [['serve', '--max-urls', '5']],
    [['serve', '--resolve', 'garbage']],
    [['serve', '--port', '70000']],
    [['walk', 'http://x.test/', '--resolve', 'x.test:80:not-an-ip']],
    [['job', 'run', '--resume', 'nope', '--store', 'memory']],
    [['job', 'run', 'http://x.test/', '--resume', 'AAAAAAAAAAAAAAAAAAAAAA', '--store', 'memory']],
    [['estimate', 'http://x.test/', '--budget', '700000']],
    [['demo', '--port', 'abc']],
  ])('%j', async (args) => {
    const run = await runMain(args);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().length).toBeGreaterThan(0);
  });
});
