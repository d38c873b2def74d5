import { DEMO_STATIC_PAGES, type DemoLeaf } from './demo-plan.js';
import { lastmodFor, qname, type NS, type Prefixes } from './xml-names.js';

/** Locales of the product pages; the first is the one listed as `<loc>`, the rest only as alternates. */
export const PRODUCT_LOCALES = ['en-us', 'de-de', 'fr'] as const;

/** Page URLs of entry `i` of a leaf: its loc first, then the alternates that are not the loc itself. */
export function demoPageUrls(origin: string, leaf: DemoLeaf, i: number): string[] {
  if (leaf.kind === 'pages') return [`${origin}/${DEMO_STATIC_PAGES[i] ?? `page-${i}`}`];
  const tail = `${leaf.pagePrefix}/item-${i}`;
  if (leaf.kind !== 'product') return [`${origin}${tail}`];
  return [...PRODUCT_LOCALES.map((locale) => `${origin}/${locale}${tail}`), `${origin}${tail}`];
}

/** Namespaces a leaf's file declares. */
export function namespacesOf(leaf: DemoLeaf): Array<keyof typeof NS> {
  switch (leaf.kind) {
    case 'product':
      return ['sitemap', 'xhtml', 'image'];
    case 'video':
      return ['sitemap', 'video'];
    case 'gallery':
      return ['sitemap', 'image'];
    case 'news':
      return ['sitemap', 'news'];
    default:
      return ['sitemap'];
  }
}

function alternates(urls: string[], p: Prefixes): string {
  const langs = [...PRODUCT_LOCALES, 'x-default'];
  // The loc's own alternate is listed first (Google asks for it): the walker must not count it twice.
  const links = urls.map((href, k) => `<${qname(p.xhtml, 'link')} rel="alternate" hreflang="${langs[k]}" href="${href}"/>`);
  return links.join('\n    ');
}

function image(p: Prefixes, loc: string, extra: string): string {
  const t = (local: string) => qname(p.image, local);
  return `<${t('image')}><${t('loc')}>${loc}</${t('loc')}>${extra}</${t('image')}>`;
}

function video(origin: string, i: number, p: Prefixes): string {
  const t = (local: string) => qname(p.video, local);
  const field = (local: string, value: string | number) => `<${t(local)}>${value}</${t(local)}>`;
  return (
    `<${t('video')}>${field('thumbnail_loc', `${origin}/thumbs/v-${i}.jpg`)}${field('title', `Demo video ${i}`)}` +
    `${field('description', `How to use item ${i} &amp; its accessories`)}${field('content_loc', `${origin}/media/v-${i}.mp4`)}` +
    `${field('player_loc', `${origin}/player?v=${i}&amp;autoplay=1`)}${field('duration', 30 + (i % 600))}` +
    `${field('publication_date', lastmodFor(i))}${field('family_friendly', i % 5 ? 'yes' : 'no')}` +
    `${field('tag', 'demo')}${field('tag', `series-${i % 7}`)}</${t('video')}>`
  );
}

function news(leaf: DemoLeaf, i: number, p: Prefixes): string {
  const t = (local: string) => qname(p.news, local);
  const field = (local: string, value: string) => `<${t(local)}>${value}</${t(local)}>`;
  const language = leaf.pagePrefix.startsWith('/fr/') ? 'fr' : 'en';
  const publication = `<${t('publication')}>${field('name', 'Demo Times')}${field('language', language)}</${t('publication')}>`;
  return (
    `<${t('news')}>${publication}${field('publication_date', lastmodFor(i))}` +
    `${field('title', `Story ${i}: <![CDATA[markets & more]]>`)}${field('keywords', 'demo, sitemap, news')}</${t('news')}>`
  );
}

function extensions(origin: string, leaf: DemoLeaf, i: number, p: Prefixes): string {
  const urls = demoPageUrls(origin, leaf, i);
  switch (leaf.kind) {
    case 'product':
      return `${alternates(urls, p)}\n    ${image(p, `${origin}/images${leaf.pagePrefix}/item-${i}.jpg`, `<${qname(p.image, 'title')}>Item ${i} &amp; box</${qname(p.image, 'title')}>`)}`;
    case 'video':
      return video(origin, i, p);
    case 'gallery':
      return [1, 2, 3]
        .map((k) => image(p, `${origin}/photos/${i}-${k}.jpg`, `<${qname(p.image, 'caption')}>Photo ${k} of ${i}</${qname(p.image, 'caption')}>`))
        .join('');
    case 'news':
      return news(leaf, i, p);
    default:
      return '';
  }
}

function locElement(loc: string, i: number, p: Prefixes): string {
  const tag = qname(p.sitemap, 'loc');
  // Hand-written files wrap locs in CDATA or whitespace now and then; both must give the same URL.
  if (i % 7 === 3) return `<${tag}><![CDATA[${loc}]]></${tag}>`;
  if (i % 11 === 5) return `<${tag}>\n      ${loc}\n    </${tag}>`;
  return `<${tag}>${loc}</${tag}>`;
}

/** One `<url>` element of a leaf urlset, extensions included. */
export function urlElement(origin: string, leaf: DemoLeaf, i: number, p: Prefixes): string {
  const t = (local: string) => qname(p.sitemap, local);
  const [loc = ''] = demoPageUrls(origin, leaf, i);
  const extra = extensions(origin, leaf, i, p);
  return (
    `  <${t('url')}>\n    ${locElement(loc, i, p)}\n    <${t('lastmod')}>${lastmodFor(i)}</${t('lastmod')}>` +
    `\n    <${t('changefreq')}>${i % 2 ? 'weekly' : 'daily'}</${t('changefreq')}>\n    <${t('priority')}>0.${1 + (i % 9)}</${t('priority')}>` +
    `${extra ? `\n    ${extra}` : ''}\n  </${t('url')}>\n`
  );
}
