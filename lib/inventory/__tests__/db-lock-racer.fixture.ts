// One contender of the lock race (db-lock.race.test.ts): for each line `take DIR` on stdin it tries to take the lock
// of DIR and answers `won` or `lost`; `release` lets go of what it holds.
import { createInterface } from 'node:readline';
import { acquireDbLock, type DbLock } from '../db-lock.js';

let held: DbLock | null = null;
for await (const line of createInterface({ input: process.stdin })) {
  const [command, dir = ''] = line.split(' ');
  if (command === 'release') {
    held?.release();
    held = null;
    process.stdout.write('released\n');
    continue;
  }
  try {
    held = acquireDbLock(dir);
    process.stdout.write('won\n');
  } catch {
    process.stdout.write('lost\n');
  }
}
