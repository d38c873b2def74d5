// How each Redis error reply is classified, over a RedisCommands that answers with the replies real servers send
// in states a test cannot cheaply provoke (loading a dataset, failover, cluster resharding).
import { describe, expect, it } from 'vitest';
import { RedisReplyError, type RedisCommands } from '../redis-commands.js';
import { ScriptRunner } from '../script-runner.js';
import { STATUS } from '../scripts/job-scripts.js';

const RETRY = { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 };

/** Commands that answer every call with `reply` as an error, counting the calls. */
function failingWith(reply: string): RedisCommands & { calls: number } {
  const commands = {
    calls: 0,
    send: async () => {
      commands.calls += 1;
      throw new RedisReplyError(reply);
    },
    close: async () => {},
  };
  return commands;
}

describe('the script runner classifying error replies', () => {
  it.each([
    ['LOADING', 'LOADING Redis is loading the dataset in memory'],
    ['MASTERDOWN', 'MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no'],
    ['TRYAGAIN', 'TRYAGAIN Multiple keys request during rehashing of slot'],
    ['CLUSTERDOWN', 'CLUSTERDOWN The cluster is down'],
    ['OOM', `ERR Error running script (call to f_${STATUS.sha}): @user_script:12: -OOM command not allowed when used memory > 'maxmemory'`],
  ])('retries %s, then reports a retryable store_unavailable naming only the code', async (code, reply) => {
    const commands = failingWith(reply);
    const error = await new ScriptRunner(commands, RETRY).eval(STATUS, ['k'], []).then(
      () => new Error('expected a rejection'),
      (caught: unknown) => caught as Error,
    );
    expect(error).toMatchObject({ kind: 'store_unavailable', failure: 'unavailable' });
    expect(error.message).toContain(code);
    expect(error.message).not.toContain(STATUS.sha);
    expect(commands.calls).toBe(RETRY.attempts);
  });

  it('answers a reply about foreign data (WRONGTYPE) at once as a conflict, without the reply', async () => {
    const commands = failingWith(`WRONGTYPE Operation against a key holding the wrong kind of value script: ${STATUS.sha}, on @user_script:3.`);
    const error = await new ScriptRunner(commands, RETRY).eval(STATUS, ['k'], []).then(
      () => new Error('expected a rejection'),
      (caught: unknown) => caught as Error,
    );
    expect(error).toMatchObject({ kind: 'conflict', failure: 'corrupt' });
    expect(error.message).not.toContain(STATUS.sha);
    expect(error.message).not.toContain('WRONGTYPE');
    expect(commands.calls).toBe(1);
  });
});
