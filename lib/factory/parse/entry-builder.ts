import type { Alternate, Changefreq, SitemapImage, SitemapNews, SitemapVideo } from '../../core/types.js';
import { Ctx, Field } from './element-context.js';
import { newImage, newNews, newVideo, setImageField, setNewsField, setVideoField } from './extension-builder.js';
import { feedDate, parseChangefreq, parsePriority, textOrNull, w3cDatetime } from './field-values.js';
import { type ItemSink, NONE, bareEntry } from './item-sink.js';
import { checkAbsoluteLoc, resolveLoc } from './loc-validator.js';
import type { ParserOptions } from './types.js';

/** Attributes read from `<xhtml:link>`, feed `<link>` and `<guid>`; names compared lower-cased, prefix ignored. */
export interface LinkAttributes {
  rel: string | null;
  hreflang: string | null;
  href: string | null;
  isPermaLink: string | null;
  /** An attribute held a character reference to no character: the link is refused. */
  invalid: boolean;
}

/**
 * Holds the fields of the one entry being read (`<url>`, `<sitemap>`, RSS `<item>`, Atom `<entry>`) and
 * turns it into an item or a counted drop when it closes. Nothing else about the document is kept.
 */
export class EntryBuilder {
  private kind: number = Ctx.Ignore;
  private depth = -1;
  private loc: string | null = null;
  /** The entry's loc held a character reference to no character: the entry is dropped as malformed. */
  private locRefused = false;
  private lastmod: string | null = null;
  private published: string | null = null;
  private guid: string | null = null;
  private changefreq: Changefreq | null = null;
  private priority: number | null = null;
  private rawAlternates: Alternate[] | null = null;
  private images: SitemapImage[] | null = null;
  private videos: SitemapVideo[] | null = null;
  private news: SitemapNews | null = null;
  private image: SitemapImage | null = null;
  private video: SitemapVideo | null = null;
  private newsDraft: SitemapNews | null = null;

  constructor(
    private readonly sink: ItemSink,
    private readonly options: ParserOptions,
  ) {}

  /** An entry element opened at `depth`; one still open (an unclosed `<url>`) is finished first. */
  start(kind: number, depth: number): void {
    if (this.kind !== Ctx.Ignore) this.finish();
    this.kind = kind;
    this.depth = depth;
  }

  /** An entry element closed at `depth`: finishes the entry if it is the one being read. */
  end(depth: number): void {
    if (this.kind !== Ctx.Ignore && depth === this.depth) this.finish();
  }

  /** An image, video or news block opened inside the current `<url>`. */
  openExtension(code: number): void {
    if (this.kind !== Ctx.Url) return;
    if (code === Ctx.Image) this.image = newImage();
    else if (code === Ctx.Video) this.video = newVideo();
    else if (code === Ctx.News) this.newsDraft = newNews();
  }

  /** An image, video or news block closed: keeps it (an image needs its loc; the first news block wins). */
  closeExtension(code: number): void {
    if (code === Ctx.Image && this.image !== null) {
      if (this.image.loc !== '') (this.images ??= []).push(this.image);
      this.image = null;
    } else if (code === Ctx.Video && this.video !== null) {
      (this.videos ??= []).push(this.video);
      this.video = null;
    } else if (code === Ctx.News && this.newsDraft !== null) {
      this.news ??= this.newsDraft;
      this.newsDraft = null;
    }
  }

  /** Text of a field element, routed to the entry or the open extension block. */
  setField(field: number, text: string): void {
    if (this.kind === Ctx.Ignore) return;
    if (field >= Field.NewsPublicationDate) {
      if (this.newsDraft !== null) setNewsField(this.newsDraft, field, text);
    } else if (field >= Field.VideoThumbnailLoc) {
      if (this.video !== null) setVideoField(this.video, field, text);
    } else if (field >= Field.ImageLoc) {
      if (this.image !== null) setImageField(this.image, field, text);
    } else {
      this.setEntryField(field, text);
    }
  }

  /** A field whose text held a reference to no character: a loc (or feed link) refuses its entry, other fields stay null. */
  refuseField(field: number): void {
    if (this.kind === Ctx.Ignore) return;
    if (field === Field.Loc || field === Field.FeedLink) this.locRefused = true;
  }

  /** An `<xhtml:link>` inside `<url>`: kept when rel is alternate and hreflang and href are present. */
  addAlternate(attrs: LinkAttributes): void {
    if (this.kind !== Ctx.Url || attrs.invalid || attrs.rel?.trim().toLowerCase() !== 'alternate') return;
    const hreflang = textOrNull(attrs.hreflang ?? '');
    const href = textOrNull(attrs.href ?? '');
    if (hreflang !== null && href !== null) (this.rawAlternates ??= []).push({ hreflang, href });
  }

  /** A feed `<link>`: Atom's href (rel absent or alternate) or RSS's text; the first one found wins. */
  setFeedLink(text: string, attrs: LinkAttributes): void {
    if (this.loc !== null || (this.kind !== Ctx.Item && this.kind !== Ctx.Entry)) return;
    if (attrs.href !== null || attrs.invalid) {
      const rel = attrs.rel?.trim().toLowerCase() ?? 'alternate';
      if (rel !== 'alternate') return;
      if (attrs.invalid) this.locRefused = true;
      else this.loc = textOrNull(attrs.href ?? '');
    } else {
      this.loc = textOrNull(text);
    }
  }

  /** An RSS `<guid>`: a fallback page URL unless isPermaLink="false". */
  setGuid(text: string, attrs: LinkAttributes): void {
    if (this.kind !== Ctx.Item || attrs.invalid || attrs.isPermaLink?.trim().toLowerCase() === 'false') return;
    this.guid ??= textOrNull(text);
  }

  private setEntryField(field: number, text: string): void {
    switch (field) {
      case Field.Loc:
        this.loc ??= textOrNull(text);
        break;
      case Field.Lastmod:
        this.lastmod = this.date(text, w3cDatetime);
        break;
      case Field.Changefreq:
        this.changefreq = parseChangefreq(text);
        break;
      case Field.Priority:
        this.priority = parsePriority(text);
        break;
      case Field.PubDate:
        this.lastmod = this.date(text, feedDate);
        break;
      case Field.Published:
        this.published = textOrNull(text);
        break;
    }
  }

  private finish(): void {
    if (this.locRefused) {
      this.sink.drop('malformed');
      return this.reset();
    }
    switch (this.kind) {
      case Ctx.Url:
        this.finishUrl();
        break;
      case Ctx.Sitemap:
        this.finishSitemap();
        break;
      default:
        this.finishFeedItem();
    }
    this.reset();
  }

  private finishUrl(): void {
    if (this.loc === null) return this.sink.drop('malformed');
    const checked = checkAbsoluteLoc(this.loc, this.options.maxUrlLength);
    if (checked.drop !== null) return this.sink.drop(checked.drop, this.loc);
    this.sink.url({
      loc: checked.loc,
      lastmod: this.lastmod,
      changefreq: this.changefreq,
      priority: this.priority,
      alternates: this.rawAlternates === null ? NONE : this.resolveAlternates(this.rawAlternates, checked.loc),
      images: this.images ?? NONE,
      videos: this.videos ?? NONE,
      news: this.news,
    });
  }

  // Child sitemaps may be relative in the wild (static exports): resolved against the index's own URL.
  private finishSitemap(): void {
    if (this.loc === null) return this.sink.refuseChild('malformed');
    const checked = resolveLoc(this.loc, this.options.sitemapUrl, this.options.maxUrlLength);
    if (checked.drop !== null) return this.sink.refuseChild(checked.drop, this.loc);
    this.sink.sitemap(checked.loc, this.lastmod);
  }

  // Feeds allow relative links (Atom resolves them against the document): resolved against the feed's URL.
  private finishFeedItem(): void {
    const link = this.loc ?? this.guid;
    if (link === null) return this.sink.drop('malformed');
    const checked = resolveLoc(link, this.options.sitemapUrl, this.options.maxUrlLength);
    if (checked.drop !== null) return this.sink.drop(checked.drop, link);
    this.sink.url(bareEntry(checked.loc, this.lastmod ?? this.date(this.published ?? '', feedDate)));
  }

  /** A date field read by `read`; a value that is not a date becomes null and is counted, never kept verbatim. */
  private date(text: string, read: (value: string) => string | null): string | null {
    const value = textOrNull(text);
    if (value === null) return null;
    const date = read(value);
    if (date === null) this.sink.invalidLastmod += 1;
    return date;
  }

  // hreflang hrefs may be relative to their page; invalid ones are left out (they are not page locs).
  private resolveAlternates(raw: Alternate[], base: string): Alternate[] {
    const out: Alternate[] = [];
    for (const { hreflang, href } of raw) {
      const checked = resolveLoc(href, base, this.options.maxUrlLength);
      if (checked.drop === null) out.push({ hreflang, href: checked.loc });
    }
    return out;
  }

  private reset(): void {
    this.kind = Ctx.Ignore;
    this.depth = -1;
    this.loc = this.lastmod = this.published = this.guid = null;
    this.locRefused = false;
    this.changefreq = this.priority = null;
    this.rawAlternates = this.images = this.videos = null;
    this.news = this.image = this.video = this.newsDraft = null;
  }
}
