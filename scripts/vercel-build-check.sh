#!/usr/bin/env bash
# Proves the repository deploys: builds it with Vercel's own builder, offline from Vercel (npm registry only),
# then checks the output and makes each built function answer requests.
#
#   scripts/vercel-build-check.sh            # about 3 minutes; needs the npm registry, not a Vercel account
#   KEEP=1 scripts/vercel-build-check.sh     # keep the scratch directory for inspection
#   VERCEL_CLI_DIR=/path scripts/...         # reuse a directory where vercel@58.10.0 is already installed
#
# What it does:
#   1. copies the working tree (no node_modules, .git, .vercel, dist) to a scratch directory: `vercel build`
#      runs the install command there and prunes node_modules, so it must never run in the repository;
#   2. installs vercel@58.10.0 (the newest that installs here) with npm into the scratch directory;
#   3. writes a hand-made .vercel/project.json (project and org ids are placeholders; `vercel build` reads the
#      settings from it and never contacts Vercel), choosing Node 24.x and no framework;
#   4. runs `vercel build --yes --debug`: installCommand (npm ci), buildCommand (npm run typecheck), static output from
#      public/, one function per api/ route;
#   5. runs scripts/vercel-output-check.mjs on .vercel/output: function list, runtimes, maxDuration, no source in
#      the static output, no test as a function, and each function (copied alone, no node_modules above it)
#      answering requests both when imported directly and through @vercel/node's launcher.
# Not part of `npm test`: it is slow and installs a package.
set -euo pipefail

VERCEL_VERSION=58.10.0
REPO="$(cd "$(dirname "$0")/.." && pwd)"
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/cf-vercel-check.XXXXXX")"
PROJECT="$SCRATCH/project"
CLI_DIR="${VERCEL_CLI_DIR:-$SCRATCH/cli}"

cleanup() {
  if [[ "${KEEP:-0}" == "1" ]]; then echo "scratch kept: $SCRATCH"; else rm -rf "$SCRATCH"; fi
}
trap cleanup EXIT

echo "== copying $REPO to $PROJECT"
mkdir -p "$PROJECT"
tar -C "$REPO" \
  --exclude=./node_modules --exclude=./.git --exclude=./.vercel --exclude=./dist --exclude=./.tmp --exclude=./coverage \
  -cf - . | tar -C "$PROJECT" -xf -

if [[ ! -x "$CLI_DIR/node_modules/.bin/vercel" ]]; then
  echo "== installing vercel@$VERCEL_VERSION into $CLI_DIR"
  mkdir -p "$CLI_DIR"
  npm install --prefix "$CLI_DIR" --no-audit --no-fund --no-save "vercel@$VERCEL_VERSION" >"$SCRATCH/npm-install.log" 2>&1 ||
    { cat "$SCRATCH/npm-install.log"; exit 1; }
fi
VERCEL="$CLI_DIR/node_modules/.bin/vercel"
"$VERCEL" --version

echo "== writing .vercel/project.json"
mkdir -p "$PROJECT/.vercel"
cat >"$PROJECT/.vercel/project.json" <<'JSON'
{"projectId":"prj_local","orgId":"team_local","settings":{"framework":null,"nodeVersion":"24.x"}}
JSON

echo "== vercel build --yes"
# Vercel CLI 58 prints the install and build commands' output only some of the time (offline, its retries of the
# user lookup race the capture), so the log cannot prove the typecheck ran. What proves it: the build exits 0 (a
# failing buildCommand fails it), its debug log says which buildCommand it was given, and package.json was built by
# @vercel/static-build, the builder that runs it. The log is shown without the debug lines and the offline retries.
status=0
(cd "$PROJECT" && VERCEL_TELEMETRY_DISABLED=1 "$VERCEL" build --yes --debug) >"$SCRATCH/vercel-build.log" 2>&1 || status=$?
grep -v -e '\[debug\]' -e '^    at ' -e '^TypeError: fetch failed' "$SCRATCH/vercel-build.log" || true
[[ $status -eq 0 ]] || { echo "FAIL vercel build exited $status"; exit 1; }
grep -q 'VERCEL_PROJECT_SETTINGS_BUILD_COMMAND to "npm run typecheck"' "$SCRATCH/vercel-build.log" &&
  grep -q '"@vercel/static-build"' "$PROJECT/.vercel/output/builds.json" ||
  { echo "FAIL buildCommand (npm run typecheck) was not part of the build"; exit 1; }

echo "== checking .vercel/output"
node "$REPO/scripts/vercel-output-check.mjs" "$PROJECT" "$CLI_DIR" "$SCRATCH"
