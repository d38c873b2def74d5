// The docs check: every fenced example marked ```sh runnable in README.md and docs/*.md is run against the demo site,
// so the guide and the reference cannot drift from the CLI. Inside such a block each non-empty line that is not a
// comment is one command, run in order with `bash -c` from a temporary folder of the block's own; `$R` is the demo
// site's root URL and `crawler-factory` the built bin (dist/cli/bin.js). A line ending `# exit N` expects exit code N
// (default 0). Runnable commands stay quick and offline: no servers that keep running, no DATABASE_URL or REDIS_URL.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../lib/demo/demo-site.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The compiled executable `npm ci` / `npm run build` makes: what `crawler-factory` is on a user's PATH. */
const BUILT_BIN = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const README_MAX_LINES = 260;
/** Each command's wall clock: runnable examples are meant to take a few seconds at most. */
const COMMAND_TIMEOUT_MS = 30_000;
/** What commander prints for a flag or command the CLI does not have: the docs named something that does not exist. */
const COMMANDER_REFUSAL = /error: (unknown option|unknown command|too many arguments)/;

interface RunnableCommand {
  line: number;
  command: string;
  expectedExit: number;
}

interface RunnableBlock {
  file: string;
  line: number;
  commands: RunnableCommand[];
}

/** The documentation files the check reads: README.md, then docs/*.md in name order. */
function markdownFiles(): string[] {
  const docs = existsSync(join(ROOT, 'docs'))
    ? readdirSync(join(ROOT, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .sort()
        .map((name) => `docs/${name}`)
    : [];
  return ['README.md', ...docs];
}

/** The ```sh runnable blocks of one markdown file, each with its commands and their expected exit codes. */
function runnableBlocks(file: string, text: string): RunnableBlock[] {
  const blocks: RunnableBlock[] = [];
  const lines = text.split('\n');
  let info: string | null = null;
  let block: RunnableBlock = { file, line: 0, commands: [] };
  for (const [index, raw] of lines.entries()) {
    const line = raw.trimEnd();
    if (info === null) {
      const open = /^\s*```(.*)$/.exec(line);
      if (open) [info, block] = [(open[1] ?? '').trim(), { file, line: index + 1, commands: [] }];
      continue;
    }
    if (/^\s*```\s*$/.test(line)) {
      if (/^sh\s+runnable$/.test(info)) blocks.push(block);
      info = null;
      continue;
    }
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const exit = /\s#\s*exit\s+(\d+)\s*$/.exec(trimmed);
    const command = exit ? trimmed.slice(0, exit.index).trim() : trimmed;
    block.commands.push({ line: index + 1, command, expectedExit: exit ? Number(exit[1]) : 0 });
  }
  if (info !== null) throw new Error(`${file}: a code fence opened at line ${block.line} never closes`);
  return blocks;
}

interface CommandRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  timedOut: boolean;
}

/** Keeps the last `limit` characters of a stream: enough to say why a command failed, without holding a walk's output. */
function tail(limit: number): { add: (chunk: Buffer) => void; text: () => string } {
  let text = '';
  return {
    add: (chunk) => {
      text = (text + chunk.toString()).slice(-limit);
    },
    text: () => text,
  };
}

/** Runs one command with `bash -c` in `cwd`; a command past the time limit is killed with its whole process group. */
function runCommand(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = tail(20_000);
    child.stdout.on('data', output.add);
    child.stderr.on('data', output.add);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, COMMAND_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output: output.text(), timedOut });
    });
  });
}

/** The environment of the examples: no service variables of this machine, only what the docs say to set. */
function exampleEnv(binDir: string, rootUrl: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(FACTORY_|QSTASH_|UPSTASH_|KV_|VERCEL|CRON_SECRET$|DATABASE_URL$|REDIS_URL$|TEST_DATABASE_URL$)/.test(name)) continue;
    if (/^(https?|no)_proxy$/i.test(name)) continue;
    env[name] = value;
  }
  return { ...env, PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`, R: rootUrl, DATABASE_URL: '', REDIS_URL: '' };
}

const files = markdownFiles().map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
const blocks = files.flatMap(({ file, text }) => runnableBlocks(file, text));

describe('the docs check: README.md and docs/', () => {
  it(`README.md is a guide of at most ${README_MAX_LINES} lines`, () => {
    const readme = files.find(({ file }) => file === 'README.md')?.text ?? '';
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('every docs/*.md file the README links to exists, and every one is linked', () => {
    const readme = files.find(({ file }) => file === 'README.md')?.text ?? '';
    const linked = [...new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+\.md)(#[^)\s]*)?\)/g)].map((match) => match[1] ?? ''))];
    expect(linked.length).toBeGreaterThan(0);
    expect(linked.filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
    expect(files.map(({ file }) => file).filter((file) => file.startsWith('docs/') && !linked.includes(file))).toEqual([]);
  });

  it('finds runnable examples in the README and in the docs', () => {
    expect(blocks.filter((block) => block.file === 'README.md').length).toBeGreaterThan(0);
    expect(blocks.filter((block) => block.file.startsWith('docs/')).length).toBeGreaterThan(0);
    expect(blocks.every((block) => block.commands.length > 0)).toBe(true);
  });
});

describe('the docs check: runnable examples against the demo site', () => {
  let site: DemoSite;
  let binDir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    if (!existsSync(BUILT_BIN)) throw new Error(`${BUILT_BIN} is missing: run npm run build`);
    site = await startDemoSite();
    binDir = await mkdtemp(join(tmpdir(), 'docs-check-bin-'));
    const quote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;
    await writeFile(join(binDir, 'crawler-factory'), `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(BUILT_BIN)} "$@"\n`);
    await chmod(join(binDir, 'crawler-factory'), 0o755);
    env = exampleEnv(binDir, site.rootUrl);
  });

  afterAll(async () => {
    await site?.close();
    if (binDir) await rm(binDir, { recursive: true, force: true });
  });

  it.each(blocks.map((block) => ({ ...block, name: `${block.file}:${block.line}: ${block.commands[0]?.command ?? ''}` })))(
    '$name',
    async (block) => {
      const cwd = await mkdtemp(join(tmpdir(), 'docs-check-'));
      try {
        for (const { line, command, expectedExit } of block.commands) {
          const run = await runCommand(command, cwd, env);
          const what = `${block.file}:${line}: ${command}\n${run.timedOut ? `(killed after ${COMMAND_TIMEOUT_MS} ms)\n` : ''}${run.output}`;
          expect(run.output, what).not.toMatch(COMMANDER_REFUSAL);
          expect(run.code, what).toBe(expectedExit);
        }
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
    COMMAND_TIMEOUT_MS * Math.max(1, ...blocks.map((block) => block.commands.length)) + 10_000,
  );
});
