// The entry the bin loads for `job run`: the same program, bundled by scripts/build.mjs with everything `job run`
// reaches (the library, the job stores and their packages) into one dist/cli/job-main.js, as walk-main.ts is for
// `walk`: a job that reads many small sitemaps is short, and loading a few hundred modules was a visible part of it.
export { main } from './main.js';
