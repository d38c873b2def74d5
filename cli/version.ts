import { readFileSync } from 'node:fs';

/** The package version, read from package.json beside the sources (`cli/`) or the build (`dist/cli/`). */
export function packageVersion(): string {
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const { name, version } = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (name === 'crawler-factory' && version) return version;
    } catch {
      // not this layout: try the next
    }
  }
  return '0.0.0';
}
