import { refUrl } from './demo-bodies.js';
import { PRODUCT_LOCALES } from './demo-entries.js';
import type { DemoLeaf, DemoPlan } from './demo-plan.js';

/** What a correct walk from some start reports: exact counts, derived from the plan, not from the bodies. */
export interface DemoWalkExpectation {
  /** Distinct page URLs: every loc plus every hreflang alternate that is not itself a loc. */
  pageUrls: number;
  /** Page entries: `<url>` elements, feed items, text lines. */
  entries: number;
  /** Alternates that add a URL (the loc's own alternate does not). No alternate is a loc elsewhere. */
  alternateUrls: number;
  /** `rel="alternate"` links as entries carry them, the loc's own included. */
  alternateLinks: number;
  /** Sitemaps fetched and parsed, each once, indexes included. */
  sitemaps: number;
  sitemapUrls: string[];
  /** Children that fail, with the kind the walker should report and the index that listed them. */
  failures: Array<{ url: string; kind: 'http_status'; parent: string }>;
  /** Index entries that are URL variants of a sitemap already on the walk: never fetched. */
  cycleRefs: string[];
  /** Depth of the deepest sitemap (the start is 0). */
  maxDepth: number;
  images: number;
  videos: number;
  news: number;
}

/** Ground truth of the demo site for one origin and scale. */
export interface DemoSiteExpectation {
  scale: number;
  origin: string;
  robotsUrl: string;
  rootIndexUrl: string;
  /** What discovery answers: robots.txt lines resolved and deduped, in file order. */
  robotsSitemaps: string[];
  /** Walking the root index alone. */
  index: DemoWalkExpectation;
  /** Walking every discovered sitemap (the index plus the robots-only one). */
  all: DemoWalkExpectation;
}

function emptyWalk(): DemoWalkExpectation {
  return {
    pageUrls: 0,
    entries: 0,
    alternateUrls: 0,
    alternateLinks: 0,
    sitemaps: 0,
    sitemapUrls: [],
    failures: [],
    cycleRefs: [],
    maxDepth: 0,
    images: 0,
    videos: 0,
    news: 0,
  };
}

function addLeaf(walk: DemoWalkExpectation, leaf: DemoLeaf): void {
  const alternates = leaf.kind === 'product' ? PRODUCT_LOCALES.length * leaf.count : 0;
  walk.entries += leaf.count;
  walk.alternateUrls += alternates;
  walk.alternateLinks += leaf.kind === 'product' ? alternates + leaf.count : 0;
  walk.pageUrls += leaf.count + alternates;
  walk.images += leaf.kind === 'product' ? leaf.count : leaf.kind === 'gallery' ? 3 * leaf.count : 0;
  walk.videos += leaf.kind === 'video' ? leaf.count : 0;
  walk.news += leaf.kind === 'news' ? leaf.count : 0;
}

function walkFrom(plan: DemoPlan, origin: string, start: string, walk: DemoWalkExpectation): void {
  const visited = new Set<string>();
  const visit = (path: string, depth: number, parent: string): void => {
    const node = plan.nodes.get(path);
    if (!node) throw new Error(`demo plan has no node at ${path}`);
    if (node.kind === 'missing') return void walk.failures.push({ url: `${origin}${path}`, kind: 'http_status', parent });
    visited.add(path);
    walk.sitemaps += 1;
    walk.sitemapUrls.push(`${origin}${path}`);
    walk.maxDepth = Math.max(walk.maxDepth, depth);
    if (node.kind !== 'index') return addLeaf(walk, node);
    for (const ref of node.children) {
      if (visited.has(ref.path)) walk.cycleRefs.push(refUrl(origin, ref));
      else visit(ref.path, depth + 1, `${origin}${path}`);
    }
  };
  visit(start, 0, '');
}

/** The exact counts a correct walker reports on the demo site at `scale` served at `origin`. */
export function expectationOf(plan: DemoPlan, origin: string): DemoSiteExpectation {
  const index = emptyWalk();
  walkFrom(plan, origin, plan.rootIndex, index);
  const all: DemoWalkExpectation = { ...index, sitemapUrls: [...index.sitemapUrls], failures: [...index.failures], cycleRefs: [...index.cycleRefs] };
  walkFrom(plan, origin, plan.extra, all);
  return {
    scale: plan.scale,
    origin,
    robotsUrl: `${origin}/robots.txt`,
    rootIndexUrl: `${origin}${plan.rootIndex}`,
    robotsSitemaps: [`${origin}${plan.rootIndex}`, `${origin}${plan.extra}`],
    index,
    all,
  };
}
