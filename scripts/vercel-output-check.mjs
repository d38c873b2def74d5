#!/usr/bin/env node
// Checks what `vercel build` wrote to .vercel/output and makes every built function answer real requests.
// Run by scripts/vercel-build-check.sh:
//   node scripts/vercel-output-check.mjs <project dir> <vercel CLI dir> <scratch dir>
// Checks:
//   - exactly the expected functions (api/factory/{cron,estimate,discover,health,sites,slice,slice-failed}.func), runtime nodejs24.x, maxDuration as in
//     vercel.json, handler file present; no test or helper became a function; no test file inside a function;
//   - .vercel/output/static holds no source (.ts), tsconfig, package.json or lib/ file;
//   - each function, copied alone to a directory with no node_modules above it, is loaded twice:
//     (1) its handler module imported and its exported GET/POST called with web Requests;
//     (2) served by Vercel's own Node launcher (@vercel/node's serverless handler, as `vercel dev` runs it)
//         and asked over HTTP.
import { fork } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const EXPECTED_FUNCTIONS = [
  'api/factory/cron',
  'api/factory/discover',
  'api/factory/estimate',
  'api/factory/health',
  'api/factory/sites',
  'api/factory/slice-failed',
  'api/factory/slice',
];
// A closed loopback port: health must answer 503 naming the database, which proves the function runs without Postgres.
const UNREACHABLE_DATABASE_URL = 'postgres://check@127.0.0.1:9/none';
const RUNTIME = 'nodejs24.x';

const [projectDir, cliDir, scratchDir] = process.argv.slice(2);
if (!projectDir || !cliDir || !scratchDir) {
  process.stderr.write('usage: vercel-output-check.mjs <project dir> <vercel CLI dir> <scratch dir>\n');
  process.exit(2);
}
const output = join(projectDir, '.vercel', 'output');
const failures = [];

function check(ok, message) {
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${message}\n`);
  if (!ok) failures.push(message);
}

async function filesUnder(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => !entry.isDirectory()).map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'));
}

async function functionDirs() {
  const entries = await readdir(join(output, 'functions'), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory() && entry.name.endsWith('.func'))
    .map((entry) => relative(join(output, 'functions'), join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

async function checkFunctions() {
  const vercelJson = JSON.parse(await readFile(join(projectDir, 'vercel.json'), 'utf8'));
  const funcs = await functionDirs();
  process.stdout.write(`functions: ${funcs.join(', ')}\n`);
  check(
    JSON.stringify(funcs) === JSON.stringify(EXPECTED_FUNCTIONS.map((name) => `${name}.func`)),
    `exactly ${EXPECTED_FUNCTIONS.join(' and ')} are functions`,
  );
  check(!funcs.some((name) => /__tests__|\.test|(^|\/)_/.test(name)), 'no test or helper became a function');
  const configs = {};
  for (const name of funcs) {
    const dir = join(output, 'functions', name);
    const config = JSON.parse(await readFile(join(dir, '.vc-config.json'), 'utf8'));
    const source = `${name.replace(/\.func$/, '')}.ts`;
    configs[name] = config;
    process.stdout.write(
      `  ${name}: runtime ${config.runtime}, maxDuration ${config.maxDuration}, handler ${config.handler}, launcher ${config.launcherType}\n`,
    );
    check(config.runtime === RUNTIME, `${name} runs on ${RUNTIME}`);
    check(config.maxDuration === vercelJson.functions?.[source]?.maxDuration, `${name} maxDuration ${config.maxDuration} matches vercel.json`);
    check(existsSync(join(dir, config.handler)), `${name} has its handler ${config.handler}`);
    const files = await filesUnder(dir);
    check(!files.some((file) => /__tests__|\.test\.|(^|\/)test\/helpers\//.test(file)), `${name} carries no test file (${files.length} files)`);
    check(!files.some((file) => /^(api|lib)\/.*\.ts$/.test(file)), `${name} carries compiled .js, no .ts source`);
  }
  return configs;
}

async function checkStatic() {
  const dir = join(output, 'static');
  const files = existsSync(dir) ? await filesUnder(dir) : [];
  process.stdout.write(`static: ${files.join(', ') || '(none)'}\n`);
  const leaks = files.filter((file) => /\.[cm]?tsx?$|tsconfig|package(-lock)?\.json$|^(lib|api|cli|scripts|test|bench)\//.test(file));
  check(leaks.length === 0, `no source or config in .vercel/output/static${leaks.length ? `: ${leaks.join(', ')}` : ''}`);
  check(files.includes('index.html'), 'public/index.html is the static output');
}

/** A three-URL site on loopback for the estimate and discover requests. */
async function startTinySite() {
  const server = createServer((request, response) => {
    const origin = `http://${request.headers.host}`;
    if (request.url === '/robots.txt') return response.end(`User-agent: *\nSitemap: ${origin}/sitemap.xml\n`);
    if (request.url !== '/sitemap.xml') return response.writeHead(404).end();
    const urls = ['a', 'b', 'c'].map((page) => `<url><loc>${origin}/${page}</loc></url>`).join('');
    response.writeHead(200, { 'content-type': 'application/xml' });
    response.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
  });
  await new Promise((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address();
  return { server, host: `127.0.0.1:${port}`, rootUrl: `http://127.0.0.1:${port}/` };
}

/** Copies a built function to a directory of its own, so only what it carries can be loaded. */
async function isolate(name) {
  const target = join(scratchDir, 'isolated', name);
  await mkdir(dirname(target), { recursive: true });
  await cp(join(output, 'functions', name), target, { recursive: true });
  for (let up = dirname(target); up !== dirname(up); up = dirname(up)) {
    if (existsSync(join(up, 'node_modules'))) throw new Error(`${up}/node_modules would let the function load what it does not carry`);
  }
  return target;
}

/** The requests each function must answer, in order, with the status each must give; a path may use the last answer. */
function requestsFor(handler, site) {
  const post = (path, body) => ({ method: 'POST', path, body: JSON.stringify(body) });
  if (handler.includes('estimate')) return [{ ...post('/api/factory/estimate', { rootUrl: site.rootUrl }), status: 200 }];
  // A malformed site id is refused before the database is opened: the check needs no Postgres.
  if (handler.includes('sites')) return [{ method: 'GET', path: '/api/factory/sites/Bad!Id/syncs', status: 400 }];
  if (handler.includes('health')) return [{ method: 'GET', path: '/api/factory/health', status: 503 }];
  // Without CRON_SECRET and off Vercel the tick is open (no API token here): it reaches the unreachable database, 503.
  if (handler.includes('cron')) return [{ method: 'GET', path: '/api/factory/cron', status: 503 }];
  // QStash's routes take only signed calls: an unsigned one is 401 before anything is opened.
  if (handler.includes('slice-failed')) return [{ ...post('/api/factory/slice-failed', { sourceBody: '' }), status: 401 }];
  if (handler.includes('slice')) return [{ ...post('/api/factory/slice', { syncId: 'A'.repeat(22), slice: 1 }), status: 401 }];
  return [
    { method: 'GET', path: '/api/factory/discover?jobId=*', status: 400 },
    { ...post('/api/factory/discover', { rootUrl: site.rootUrl, budgetMs: 10_000 }), status: 201 },
    { method: 'GET', path: (last) => `/api/factory/discover?jobId=${last.jobId}&shard=0`, status: 200 },
  ];
}

/** On Vercel (VERCEL=1) with a token: a request without the bearer is refused, one with it gets through. */
function guardedRequests(token) {
  return [
    { method: 'GET', path: '/api/factory/discover?jobId=*', status: 401 },
    { method: 'GET', path: '/api/factory/discover?jobId=*', headers: { authorization: `Bearer ${token}` }, status: 400 },
  ];
}

/** Sends each request through `send` and checks its status; returns nothing, records failures. */
async function exchange(label, requests, send) {
  let last = {};
  for (const request of requests) {
    const path = typeof request.path === 'function' ? request.path(last) : request.path;
    const init = { method: request.method, body: request.body, headers: { 'content-type': 'application/json', ...request.headers } };
    const response = await send(path, init);
    const text = await response.text();
    last = JSON.parse(text);
    const shown = text.length > 150 ? `${text.slice(0, 150)}…` : text;
    check(response.status === request.status, `${label} ${request.method} ${path} -> ${response.status} ${shown}`);
  }
}

async function callDirectly(dir, config, site) {
  const module = await import(pathToFileURL(join(dir, config.handler)).href);
  await exchange('direct  ', requestsFor(config.handler, site), (path, init) => module[init.method](new Request(`http://localhost${path}`, init)));
}

/** Starts @vercel/node's dev-server (Vercel's Node launcher) on the isolated function; resolves with its origin. */
function startLauncher(dir, config, env) {
  const launcher = join(cliDir, 'node_modules', '@vercel', 'node', 'dist', 'dev-server.mjs');
  const child = fork(launcher, [], {
    cwd: dir,
    env: { ...env, VERCEL_DEV_ENTRYPOINT: config.handler, VERCEL_DEV_CONFIG: '{}', VERCEL_DEV_BUILD_ENV: '{}' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (address) => resolve({ child, origin: `http://127.0.0.1:${address.port}` }));
    child.once('exit', (code) => reject(new Error(`launcher exited (${code})`)));
  });
}

async function callThroughLauncher(dir, config, options) {
  const { child, origin } = await startLauncher(dir, config, options.env);
  try {
    await exchange(options.label, options.requests, (path, init) => fetch(`${origin}${path}`, init));
  } finally {
    child.kill('SIGKILL');
  }
}

/** On Vercel the cron route needs CRON_SECRET: without it 500 `config`; with it, a call without the secret is 401. */
async function checkCronGuard(dir, config) {
  const onVercel = { ...process.env, VERCEL: '1', FACTORY_API_TOKEN: 'check-token' };
  const unsigned = [{ method: 'GET', path: '/api/factory/cron', headers: { authorization: 'Bearer check-token' }, status: 500 }];
  await callThroughLauncher(dir, config, { label: 'launcher VERCEL=1', env: onVercel, requests: unsigned });
  const signed = [{ method: 'GET', path: '/api/factory/cron', headers: { authorization: 'Bearer check-token' }, status: 401 }];
  await callThroughLauncher(dir, config, { label: 'launcher VERCEL=1 CRON_SECRET', env: { ...onVercel, CRON_SECRET: 'check-secret' }, requests: signed });
}

/** A QStash signature (HS256 JWT: issuer Upstash, subject the URL, the body's SHA-256), as test/helpers/qstash-stand-in.ts makes. */
function signQStash(key, url, body) {
  const now = Math.floor(Date.now() / 1000);
  const encode = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = { iss: 'Upstash', sub: url, exp: now + 300, nbf: now, iat: now, body: createHash('sha256').update(body).digest('base64url') };
  const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${unsigned}.${createHmac('sha256', key).update(unsigned).digest('base64url')}`;
}

/** With the signing keys, the slice route refuses a bad signature (401) and lets a good one through to the database (503 here). */
async function checkQStashSignatures(dir, config) {
  const keys = { QSTASH_CURRENT_SIGNING_KEY: 'check-current-key', QSTASH_NEXT_SIGNING_KEY: 'check-next-key' };
  const body = JSON.stringify({ syncId: 'A'.repeat(22), slice: 1 });
  const url = 'http://localhost/api/factory/slice';
  const signed = (key, status) => ({ method: 'POST', path: '/api/factory/slice', body, headers: { 'upstash-signature': signQStash(key, url, body) }, status });
  const requests = [signed('not-the-key', 401), signed(keys.QSTASH_NEXT_SIGNING_KEY, 503)];
  await callThroughLauncher(dir, config, { label: 'launcher QSTASH keys', env: { ...process.env, ...keys }, requests });
}

async function callFunction(name, config, site) {
  const dir = await isolate(name);
  await callDirectly(dir, config, site);
  await callThroughLauncher(dir, config, { label: 'launcher', env: process.env, requests: requestsFor(config.handler, site) });
  if (config.handler.includes('cron')) await checkCronGuard(dir, config);
  if (/slice\.[cm]?[jt]s$/.test(config.handler)) await checkQStashSignatures(dir, config);
  if (!config.handler.includes('discover')) return;
  const env = { ...process.env, VERCEL: '1', FACTORY_API_TOKEN: 'check-token' };
  await callThroughLauncher(dir, config, { label: 'launcher VERCEL=1', env, requests: guardedRequests('check-token') });
}

async function main() {
  const configs = await checkFunctions();
  await checkStatic();
  const site = await startTinySite();
  Object.assign(process.env, { FACTORY_ALLOW_HOSTS: site.host, LOG_LEVEL: 'warn', DATABASE_URL: UNREACHABLE_DATABASE_URL });
  for (const key of [
    'REDIS_URL',
    'UPSTASH_REDIS_REST_URL',
    'UPSTASH_REDIS_REST_TOKEN',
    'FACTORY_API_TOKEN',
    'VERCEL',
    'CRON_SECRET',
    'QSTASH_TOKEN',
    'QSTASH_CURRENT_SIGNING_KEY',
    'QSTASH_NEXT_SIGNING_KEY',
  ]) {
    delete process.env[key];
  }
  try {
    for (const [name, config] of Object.entries(configs)) await callFunction(name, config, site);
  } finally {
    site.server.close();
  }
  process.stdout.write(failures.length === 0 ? 'all checks passed\n' : `${failures.length} check(s) failed\n`);
  process.exit(failures.length === 0 ? 0 : 1);
}

await main();
