/**
 * URL patterns (`include` / `exclude`: globs and `/regex/flags`) compiled for RE2's linear-time engine (re2js, a
 * maintained JavaScript port): a pattern from a site's options, the API, the console or the CLI can never make a
 * match cost more than time linear in the URL. V8's backtracking engine took 27 s on one 40-character path for
 * `/*a*a*a*a*a*a*a*a*a*a*a*a!` and froze `serve` for minutes on `/(.+)+\x01/`; RE2 answers both at once.
 * What RE2 cannot run in linear time (backreferences, lookaround) is refused with the reason, at the boundary.
 */
import { RE2JS } from 're2js';

/** A compiled pattern: true when the text matches. */
export type TextTest = (text: string) => boolean;

/**
 * True for `/.../flags`: the pattern is a regular expression, not a glob. A path glob therefore never ends
 * with `/` (write `/blog/**`, or use a path prefix).
 */
export function isRegexLiteral(value: string): boolean {
  return /^\/.+\/[dgimsuvy]*$/.test(value);
}

/** Why a pattern cannot be used (not RE2 syntax, backreferences, lookaround), or null when it compiles. */
export function patternProblem(pattern: string): string | null {
  try {
    compiledPattern(pattern);
    return null;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `not a linear-time /regular expression/ (${reason}); backreferences and lookaround are not supported`;
  }
}

/** The pattern as a linear-time test: a regex literal is searched for anywhere, a glob matches the whole text. */
export function compilePattern(pattern: string): TextTest {
  const regex = compiledPattern(pattern);
  if (isRegexLiteral(pattern)) return (text) => regex.matcher(text).find();
  return (text) => regex.matches(text);
}

function compiledPattern(pattern: string): RE2JS {
  if (!isRegexLiteral(pattern)) return RE2JS.compile(globToRe2(pattern), RE2JS.DOTALL);
  const end = pattern.lastIndexOf('/');
  return RE2JS.compile(pattern.slice(1, end), flagsOf(pattern.slice(end + 1)));
}

// JavaScript's flags that change what matches; g, y (positions) and d, u, v (RE2 is always Unicode-aware) do not.
function flagsOf(flags: string): number {
  let bits = 0;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  return bits;
}

/**
 * A URL glob in RE2 syntax, matched whole: `**` matches anything, `*` anything but `/`, `?` one character but `/`;
 * everything else is literal. A glob starting with `/` is matched against the path and query only (compile-filter).
 */
function globToRe2(glob: string): string {
  let source = '';
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob.charAt(index);
    if (char === '*' && glob.charAt(index + 1) === '*') {
      source += '.*';
      index += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
  }
  return source;
}
