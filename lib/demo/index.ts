// The demo site's public entry point (`crawler-factory/demo`): the bundled site `crawler-factory demo` serves and walks.
export { startDemoSite } from './demo-site.js';
