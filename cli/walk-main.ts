// The entry the bin loads for `walk`: the same program, but scripts/build.mjs bundles this file with everything `walk`
// reaches (the library and its packages) into one dist/cli/walk-main.js, so a walk loads one file instead of a few
// hundred modules (start-up was a fifth of a 1M-URL walk's wall time). Other commands stay lazy modules beside it.
export { main } from './main.js';
