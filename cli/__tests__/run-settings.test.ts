// The stored settings of a run: written 0600 and atomically, merged into a resume's flags, overrides said aloud.
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixedOnResume, forgetRunSettings, loadRunSettings, pickFlags, resumeFlags, RUNS_DIR, saveRunSettings } from '../run-settings.js';

const ID = 'AbCdEfGhIjKlMnOpQrStUv';

describe('run settings', () => {
  let cwd: string;
  beforeEach(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'run-settings-'));
  });
  afterEach(async () => rm(cwd, { recursive: true, force: true }));

  it('writes the settings readable by their owner only, with no temp file left, and forgets them', async () => {
    await saveRunSettings({ command: 'sync', id: ID, flags: { allowPrivate: true, cookie: 'session=secret' } }, cwd);
    const file = join(cwd, RUNS_DIR, `${ID}.json`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(cwd, RUNS_DIR))).toEqual([`${ID}.json`]);
    expect(await loadRunSettings(ID, cwd)).toMatchObject({ command: 'sync', id: ID, flags: { allowPrivate: true, cookie: 'session=secret' } });
    await forgetRunSettings(ID, cwd);
    expect(await loadRunSettings(ID, cwd)).toBeNull();
  });

  it('reads a damaged file as no settings, and refuses an id that is a path', async () => {
    await saveRunSettings({ command: 'sync', id: ID, flags: {} }, cwd);
    await writeFile(join(cwd, RUNS_DIR, `${ID}.json`), '{"command":"sync","id":');
    expect(await loadRunSettings(ID, cwd)).toBeNull();
    await expect(saveRunSettings({ command: 'sync', id: '../escape', flags: {} }, cwd)).rejects.toThrow('not a run id');
  });

  it('keeps only given flags: undefined, false and empty lists are not settings', () => {
    expect(
      pickFlags({ allowPrivate: false, allowHost: [], resolve: ['a:1:127.0.0.1'], db: undefined, full: true, other: 'x' }, [
        'allowPrivate',
        'allowHost',
        'resolve',
        'db',
        'full',
      ]),
    ).toEqual({
      resolve: ['a:1:127.0.0.1'],
      full: true,
    });
  });

  it("runs a resume with the run's flags, a flag given again overriding its stored value aloud", () => {
    const stored = { command: 'sync' as const, id: ID, savedAt: '', flags: { allowPrivate: true, allowHost: ['a.test'], db: 'inv' } };
    const { flags, notes } = resumeFlags({ resume: ID, allowHost: ['b.test'] }, stored, ['allowPrivate', 'allowHost', 'db'], ID);
    expect(flags).toEqual({ resume: ID, allowPrivate: true, allowHost: ['b.test'], db: 'inv' });
    expect(notes).toEqual(["resume: with the run's --allow-private, --db inv", "resume: --allow-host b.test overrides the run's a.test"]);
  });

  it('prints a stored store or database URL without its password', () => {
    const stored = { command: 'job run' as const, id: ID, savedAt: '', flags: { store: 'redis://:s3cret@127.0.0.1:6379' } };
    const { flags, notes } = resumeFlags({ resume: ID }, stored, ['store'], ID);
    expect(flags).toEqual({ resume: ID, store: 'redis://:s3cret@127.0.0.1:6379' });
    expect(notes).toEqual(["resume: with the run's --store redis://:***@127.0.0.1:6379"]);
  });

  it('says when there are no stored settings, and runs with the flags given', () => {
    const { flags, notes } = resumeFlags({ resume: ID, timeout: '5000' }, null, ['timeout'], ID);
    expect(flags).toEqual({ resume: ID, timeout: '5000' });
    expect(notes).toEqual([`resume: no stored settings for ${ID} in ${RUNS_DIR} (another machine or folder?): running with the flags given`]);
  });

  it('says which flags a job keeps itself, hiding secret values', () => {
    const stored = { command: 'job run' as const, id: ID, savedAt: '', flags: { timeout: '30000' } };
    expect(fixedOnResume({ timeout: '5000', cookie: 'a=b', rate: undefined }, stored, ['timeout', 'cookie', 'rate'], `job ${ID}`)).toEqual([
      `resume: --timeout 5000 is not applied: job ${ID} keeps the run's 30000`,
      `resume: --cookie (hidden) is not applied: job ${ID} keeps what it was created with`,
    ]);
    expect(fixedOnResume({ timeout: '30000' }, stored, ['timeout'], `job ${ID}`)).toEqual([]);
  });
});
