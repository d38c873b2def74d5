import { WIRE_ENCODINGS, type WireEncoding } from './wire.js';

/** What a leaf sitemap of the demo site holds; decides its format, extensions and URLs per entry. */
export type DemoLeafKind = 'product' | 'blog' | 'video' | 'gallery' | 'news' | 'text' | 'rss' | 'atom' | 'pages';

/** How an index spells a reference: as is, or as a variant of an already-visited URL (a cycle). */
export type RefVariant = 'exact' | 'upper-scheme' | 'trailing-slash';

/** One `<sitemap><loc>` of an index: a path on the site and how its URL is spelled. */
export interface DemoRef {
  path: string;
  variant: RefVariant;
}

/** A sitemap index of the demo site. */
export interface DemoIndex {
  kind: 'index';
  path: string;
  encoding: WireEncoding;
  /** Namespace prefixes nobody expects (`sm:sitemapindex`), to prove tags are matched by local name. */
  odd: boolean;
  children: DemoRef[];
}

/** A sitemap holding pages: `count` entries whose page paths start with `pagePrefix`. */
export interface DemoLeaf {
  kind: DemoLeafKind;
  path: string;
  encoding: WireEncoding;
  odd: boolean;
  count: number;
  pagePrefix: string;
}

/** A child an index lists that answers 404 (with an XML body, so only the status gives it away). */
export interface DemoMissing {
  kind: 'missing';
  path: string;
}

/** Any resource of the demo site's sitemap tree. */
export type DemoNode = DemoIndex | DemoLeaf | DemoMissing;

/** The whole site as a small table of nodes: URLs are generated from it, never stored. */
export interface DemoPlan {
  scale: number;
  rootIndex: string;
  /** Listed in robots.txt (relative line) but in no index. */
  extra: string;
  nodes: Map<string, DemoNode>;
}

/** Largest scale whose biggest file stays under the 50,000-URL sitemap limit. */
export const MAX_DEMO_SCALE = 20;

/** Static pages of the robots-only sitemap (its size does not follow the scale). */
export const DEMO_STATIC_PAGES = ['about', 'contact', 'careers', 'press', 'privacy', 'terms', 'help', 'stores', 'imprint', 'accessibility'];

const ROOT = '/sitemap_index.xml';
const ref = (path: string, variant: RefVariant = 'exact'): DemoRef => ({ path, variant });

function leaf(kind: DemoLeafKind, path: string, spec: Omit<DemoLeaf, 'kind' | 'path'>): DemoLeaf {
  return { kind, path, ...spec };
}

function productSection(section: string, odd: boolean, size: (base: number) => number): DemoNode[] {
  const parts = WIRE_ENCODINGS.map((encoding, i) => {
    const name = `part-${i + 1}.xml${encoding === 'gzip-file' ? '.gz' : ''}`;
    const pagePrefix = `/${section}/p${i + 1}`;
    return leaf('product', `/sitemaps/products/${section}/${name}`, { encoding, odd, count: size(2_500), pagePrefix });
  });
  const children = parts.map((part) => ref(part.path));
  // The shoes index points back at its parent with a trailing slash: a cycle only identity keys catch.
  if (section === 'shoes') children.push(ref('/sitemaps/products/index.xml', 'trailing-slash'));
  const encoding: WireEncoding = odd ? 'gzip-magic' : 'content-encoding';
  const index: DemoIndex = { kind: 'index', path: `/sitemaps/products/${section}/index.xml`, encoding, odd, children };
  return [index, ...parts];
}

function index(path: string, encoding: WireEncoding, children: DemoNode[], odd = false): DemoIndex {
  return { kind: 'index', path, encoding, odd, children: children.map((child) => ref(child.path)) };
}

function contentSections(size: (base: number) => number): DemoNode[] {
  const blog = [
    leaf('blog', '/sitemaps/blog/posts-2023.xml', { encoding: 'plain', odd: false, count: size(5_000), pagePrefix: '/blog/2023' }),
    leaf('blog', '/sitemaps/blog/posts-2024.xml', { encoding: 'content-encoding', odd: true, count: size(5_000), pagePrefix: '/blog/2024' }),
  ];
  const media = [
    leaf('video', '/sitemaps/media/videos.xml.gz', { encoding: 'gzip-file', odd: false, count: size(2_000), pagePrefix: '/videos/watch' }),
    leaf('video', '/sitemaps/media/clips.xml', { encoding: 'plain', odd: true, count: size(1_000), pagePrefix: '/videos/clips' }),
    leaf('gallery', '/sitemaps/media/gallery.xml', { encoding: 'gzip-magic', odd: true, count: size(2_000), pagePrefix: '/gallery' }),
  ];
  const missing: DemoMissing = { kind: 'missing', path: '/sitemaps/news/archive-2019.xml' };
  const news = [
    leaf('news', '/sitemaps/news/latest.xml', { encoding: 'plain', odd: false, count: size(1_000), pagePrefix: '/news/latest' }),
    leaf('news', '/sitemaps/news/archive.xml', { encoding: 'gzip-magic', odd: true, count: size(1_000), pagePrefix: '/fr/actualites' }),
  ];
  const feeds = [
    leaf('text', '/sitemaps/feeds/pages.txt', { encoding: 'plain', odd: false, count: size(2_000), pagePrefix: '/pages' }),
    leaf('rss', '/sitemaps/feeds/rss.xml', { encoding: 'plain', odd: false, count: size(500), pagePrefix: '/updates/rss' }),
    leaf('atom', '/sitemaps/feeds/atom.xml', { encoding: 'content-encoding', odd: false, count: size(500), pagePrefix: '/updates/atom' }),
  ];
  return [
    index('/sitemaps/blog/index.xml.gz', 'gzip-file', blog),
    ...blog,
    index('/sitemaps/media/index.xml', 'plain', media, true),
    ...media,
    index('/sitemaps/news/index.xml', 'plain', [...news, missing]),
    ...news,
    missing,
    index('/sitemaps/feeds/index.xml', 'plain', feeds),
    ...feeds,
  ];
}

/** Builds the demo site's tree for a scale (1 is about 100,000 page URLs; structure is the same at any scale). */
export function buildDemoPlan(scale = 1): DemoPlan {
  if (!(scale > 0 && scale <= MAX_DEMO_SCALE)) throw new RangeError(`demo scale must be in (0, ${MAX_DEMO_SCALE}]: ${scale}`);
  const size = (base: number) => Math.max(1, Math.round(base * scale));
  const sections = [...productSection('shoes', false, size), ...productSection('bags', true, size)];
  const products = index(
    '/sitemaps/products/index.xml',
    'plain',
    sections.filter((node) => node.path.endsWith('/index.xml')),
  );
  const content = contentSections(size);
  const topLevel = [products, ...content.filter((node) => node.kind === 'index')];
  const root = index(ROOT, 'plain', topLevel);
  // The root lists itself with an upper-case scheme: the simplest self-cycle through a URL variant.
  root.children.push(ref(ROOT, 'upper-scheme'));
  const extra = leaf('pages', '/sitemap-pages.xml', { encoding: 'plain', odd: false, count: DEMO_STATIC_PAGES.length, pagePrefix: '' });
  const nodes = new Map<string, DemoNode>([root, products, ...sections, ...content, extra].map((node) => [node.path, node]));
  return { scale, rootIndex: ROOT, extra: extra.path, nodes };
}
