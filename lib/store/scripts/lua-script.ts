import { createHash } from 'node:crypto';

/** A Lua script with its SHA1, so it runs as EVALSHA (the body is sent only once per server). */
export interface LuaScript {
  name: string;
  source: string;
  sha: string;
}

/** Defines a script; the SHA is computed here as Redis computes it (SHA1 of the exact body). */
export function defineScript(name: string, source: string): LuaScript {
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}
