// The built executable (dist/cli/bin.js, made by `npm ci` through prepare): `--version` and the top-level `--help`
// answer without loading the program, and say exactly what the program says; a closed pipe ends a run with exit 0.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runMain } from '../../test/helpers/run-cli.js';

const BIN = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

function runBin(args: string[]): { code: number | null; stdout: string } {
  const run = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout };
}

describe('the built crawler-factory executable', () => {
  it('prints the version and the same top-level help as the program, for every spelling', async () => {
    expect(runBin(['--version'])).toEqual({ code: 0, stdout: `${VERSION}\n` });
    expect(runBin(['-V'])).toEqual({ code: 0, stdout: `${VERSION}\n` });
    const help = (await runMain(['--help'])).stdout;
    expect(help).toContain('Usage: crawler-factory');
    for (const args of [['--help'], ['-h'], []]) expect(runBin(args)).toEqual({ code: 0, stdout: help });
  });

  it('ends quietly with exit 0 when the reader of its output goes away (| head)', async () => {
    const child = spawn(process.execPath, [BIN, 'walk', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.destroy(); // the pipe's reader is gone before the help is written
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });
});
