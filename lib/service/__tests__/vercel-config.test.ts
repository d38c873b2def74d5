// vercel.json against the code: per-function maxDuration, the public output folder, and which files become routes.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEFAULT_SLICE_BUDGET_MS, MAX_DURATION_SECONDS } from '../api-limits.js';
import { listApiRoutes } from '../api-routes.js';
import { CONSOLE_SECURITY_HEADERS } from '../static-files.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const VercelConfigSchema = z.object({
  buildCommand: z.string().min(1),
  outputDirectory: z.string().min(1),
  functions: z.record(z.string(), z.object({ maxDuration: z.number().int().positive() })),
  crons: z.array(z.object({ path: z.string(), schedule: z.string() })).optional(),
  headers: z.array(z.object({ source: z.string(), headers: z.array(z.object({ key: z.string(), value: z.string() })) })).optional(),
});

async function vercelConfig() {
  return VercelConfigSchema.parse(JSON.parse(await readFile(join(ROOT, 'vercel.json'), 'utf8')));
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split(sep).join('/'));
}

describe('vercel.json', () => {
  it('gives every api/ route its maxDuration from lib/service/api-limits.ts, and nothing else', async () => {
    const routes = (await listApiRoutes(join(ROOT, 'api'))).map((route) => relative(ROOT, route.file).split(sep).join('/'));
    const expected = Object.fromEntries(Object.entries(MAX_DURATION_SECONDS).map(([name, seconds]) => [`api/factory/${name}.ts`, { maxDuration: seconds }]));
    expect(routes.sort()).toEqual(Object.keys(expected).sort());
    expect((await vercelConfig()).functions).toEqual(expected);
  });

  it('lets discover run longer than estimate, and its default slice end before its maxDuration', () => {
    expect(MAX_DURATION_SECONDS.discover).toBeGreaterThan(MAX_DURATION_SECONDS.estimate);
    expect(DEFAULT_SLICE_BUDGET_MS).toBeLessThan(MAX_DURATION_SECONDS.discover * 1000);
  });

  // Vercel calls each cron path with GET and `Authorization: Bearer <CRON_SECRET>`: the path must be a route that serves GET.
  it('runs the cron route every 5 minutes, and only routes that exist', async () => {
    const { crons } = await vercelConfig();
    expect(crons).toEqual([{ path: '/api/factory/cron', schedule: '*/5 * * * *' }]);
    const routes = (await listApiRoutes(join(ROOT, 'api'))).map((route) => route.path);
    for (const cron of crons ?? []) expect(routes).toContain(cron.path);
  });

  it("serves the console on Vercel with serve's security headers (CSP, no framing, no sniffing), not the API", async () => {
    const [rule, ...others] = (await vercelConfig()).headers ?? [];
    expect(others).toEqual([]);
    expect(rule?.source).toBe('/((?!api/).*)');
    expect(Object.fromEntries((rule?.headers ?? []).map(({ key, value }) => [key.toLowerCase(), value]))).toEqual(CONSOLE_SECURITY_HEADERS);
  });

  // Without outputDirectory, Vercel serves every file outside api/ (lib/*.ts, tsconfig.json, ...) as static output.
  it('sets buildCommand and an outputDirectory that holds only public files (no source, no config)', async () => {
    const config = await vercelConfig();
    expect(config.outputDirectory).toBe('public');
    const files = await filesUnder(join(ROOT, config.outputDirectory));
    expect(files).toContain('public/index.html');
    const leaks = files.filter((file) => /\.(?:[cm]?tsx?|json|map|env|lock|ya?ml|lua)$|\/\.|tsconfig/i.test(file));
    expect(leaks).toEqual([]);
  });

  // Vercel turns every .ts under api/ into a function unless a path segment starts with `_` (`__tests__` does).
  it('keeps tests and helpers under api/ out of the routes', async () => {
    const tsFiles = (await filesUnder(join(ROOT, 'api'))).filter((file) => file.endsWith('.ts'));
    const routes = new Set((await listApiRoutes(join(ROOT, 'api'))).map((route) => relative(ROOT, route.file).split(sep).join('/')));
    const nonRoutes = tsFiles.filter((file) => !routes.has(file));
    expect(
      nonRoutes.every((file) => file.split('/').some((segment) => segment.startsWith('_'))),
      nonRoutes.join('\n'),
    ).toBe(true);
    expect(tsFiles.filter((file) => file.endsWith('.test.ts') && routes.has(file))).toEqual([]);
    expect(nonRoutes.length).toBeGreaterThan(0);
  });
});
