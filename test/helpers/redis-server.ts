import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';

/** A Redis for tests: a private redis-server on a free port, or the one REDIS_URL names. */
export interface TestRedis {
  url: string;
  /** True when this is a shared server from REDIS_URL (tests must then only touch their own keys). */
  external: boolean;
  stop(): Promise<void>;
}

/** True when a redis-server binary is on the PATH. */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** A free TCP port on 127.0.0.1 (asked from the OS, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

// Resolves once the server says it accepts connections; rejects if it exits first (port taken, ...).
function waitReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output.slice(-500)}`)));
  });
}

async function spawnRedis(): Promise<TestRedis> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  await waitReady(child);
  return {
    url: `redis://127.0.0.1:${port}`,
    external: false,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** Starts a private redis-server (retrying if the free port was taken meanwhile), else uses REDIS_URL. */
export async function startTestRedis(): Promise<TestRedis> {
  if (hasRedisServer()) {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await spawnRedis();
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
  }
  const url = process.env.REDIS_URL;
  if (!url) throw new Error('tests need redis-server on the PATH or REDIS_URL');
  return { url, external: true, stop: async () => {} };
}
