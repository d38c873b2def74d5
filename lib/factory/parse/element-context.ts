/**
 * What an open element means, decided from its parent's meaning and its local name (prefix and namespace
 * ignored). Codes are small integers kept in a per-depth array; codes from FIELD_BASE up collect text.
 */
export const Ctx = {
  /** An element whose subtree is skipped. */
  Ignore: 0,
  /** `<urlset>` or `<sitemapindex>`: either may hold `<url>` or `<sitemap>` children (mislabelled files exist). */
  SitemapRoot: 1,
  RssRoot: 2,
  /** RSS `<channel>`, and the RSS 1.0 `<rdf:RDF>` root whose items sit directly inside it. */
  Channel: 3,
  FeedRoot: 4,
  Url: 5,
  Sitemap: 6,
  Item: 7,
  Entry: 8,
  Image: 9,
  Video: 10,
  News: 11,
  Publication: 12,
  /** `<xhtml:link rel="alternate" hreflang href>` inside `<url>`: attributes only. */
  Alternate: 13,
} as const;

/** Text-collecting codes: the field of the current entry or extension the text goes to. */
export const Field = {
  Loc: 32,
  Lastmod: 33,
  Changefreq: 34,
  Priority: 35,
  /** RSS `<link>` or Atom `<link href>`: text or attributes. */
  FeedLink: 36,
  PubDate: 37,
  Guid: 38,
  Published: 39,
  ImageLoc: 40,
  ImageTitle: 41,
  ImageCaption: 42,
  ImageGeoLocation: 43,
  ImageLicense: 44,
  VideoThumbnailLoc: 48,
  VideoTitle: 49,
  VideoDescription: 50,
  VideoContentLoc: 51,
  VideoPlayerLoc: 52,
  VideoDuration: 53,
  VideoExpirationDate: 54,
  VideoRating: 55,
  VideoViewCount: 56,
  VideoPublicationDate: 57,
  VideoFamilyFriendly: 58,
  VideoRequiresSubscription: 59,
  VideoLive: 60,
  VideoUploader: 61,
  VideoTag: 62,
  NewsPublicationDate: 64,
  NewsTitle: 65,
  NewsKeywords: 66,
  NewsName: 67,
  NewsLanguage: 68,
} as const;

/** First code that collects text. */
export const FIELD_BASE = 32;

/** Meaning of an element given its parent's code and its lower-cased local name. */
export function childCode(parent: number, local: string): number {
  switch (parent) {
    case Ctx.SitemapRoot:
      return entryCode(local);
    case Ctx.Url:
    // falls through: an `<xhtml:link ...>` left open HTML-style must not swallow the rest of its `<url>`.
    case Ctx.Alternate:
      return urlChild(local);
    case Ctx.Sitemap:
      return sitemapChild(local);
    case Ctx.RssRoot:
      return local === 'channel' ? Ctx.Channel : local === 'item' ? Ctx.Item : Ctx.Ignore;
    case Ctx.Channel:
      return local === 'item' ? Ctx.Item : Ctx.Ignore;
    case Ctx.FeedRoot:
      return local === 'entry' ? Ctx.Entry : Ctx.Ignore;
    case Ctx.Item:
      return itemChild(local);
    case Ctx.Entry:
      return entryChild(local);
    default:
      return extensionChild(parent, local);
  }
}

function entryCode(local: string): number {
  return local === 'url' ? Ctx.Url : local === 'sitemap' ? Ctx.Sitemap : Ctx.Ignore;
}

function urlChild(local: string): number {
  switch (local) {
    case 'loc':
      return Field.Loc;
    case 'lastmod':
      return Field.Lastmod;
    case 'changefreq':
      return Field.Changefreq;
    case 'priority':
      return Field.Priority;
    case 'link':
      return Ctx.Alternate;
    case 'image':
      return Ctx.Image;
    case 'video':
      return Ctx.Video;
    case 'news':
      return Ctx.News;
    // A `<url>` opened before the previous one was closed (hand-edited files): the builder starts a new entry.
    case 'url':
      return Ctx.Url;
    default:
      return Ctx.Ignore;
  }
}

function sitemapChild(local: string): number {
  switch (local) {
    case 'loc':
      return Field.Loc;
    case 'lastmod':
      return Field.Lastmod;
    case 'sitemap':
      return Ctx.Sitemap;
    default:
      return Ctx.Ignore;
  }
}

function itemChild(local: string): number {
  switch (local) {
    case 'link':
      return Field.FeedLink;
    case 'pubdate':
      return Field.PubDate;
    case 'guid':
      return Field.Guid;
    // Dublin Core date, common in RSS 1.0.
    case 'date':
      return Field.Published;
    default:
      return Ctx.Ignore;
  }
}

function entryChild(local: string): number {
  switch (local) {
    case 'link':
      return Field.FeedLink;
    case 'updated':
      return Field.Lastmod;
    case 'published':
      return Field.Published;
    default:
      return Ctx.Ignore;
  }
}

function extensionChild(parent: number, local: string): number {
  switch (parent) {
    case Ctx.Image:
      return imageChild(local);
    case Ctx.Video:
      return videoChild(local);
    case Ctx.News:
      return local === 'publication' ? Ctx.Publication : newsChild(local);
    case Ctx.Publication:
      return local === 'name' ? Field.NewsName : local === 'language' ? Field.NewsLanguage : Ctx.Ignore;
    default:
      return Ctx.Ignore;
  }
}

function imageChild(local: string): number {
  switch (local) {
    case 'loc':
      return Field.ImageLoc;
    case 'title':
      return Field.ImageTitle;
    case 'caption':
      return Field.ImageCaption;
    case 'geo_location':
      return Field.ImageGeoLocation;
    case 'license':
      return Field.ImageLicense;
    default:
      return Ctx.Ignore;
  }
}

function videoChild(local: string): number {
  switch (local) {
    case 'thumbnail_loc':
      return Field.VideoThumbnailLoc;
    case 'title':
      return Field.VideoTitle;
    case 'description':
      return Field.VideoDescription;
    case 'content_loc':
      return Field.VideoContentLoc;
    case 'player_loc':
      return Field.VideoPlayerLoc;
    case 'duration':
      return Field.VideoDuration;
    case 'expiration_date':
      return Field.VideoExpirationDate;
    case 'rating':
      return Field.VideoRating;
    case 'view_count':
      return Field.VideoViewCount;
    case 'publication_date':
      return Field.VideoPublicationDate;
    case 'family_friendly':
      return Field.VideoFamilyFriendly;
    case 'requires_subscription':
      return Field.VideoRequiresSubscription;
    case 'live':
      return Field.VideoLive;
    case 'uploader':
      return Field.VideoUploader;
    case 'tag':
      return Field.VideoTag;
    default:
      return Ctx.Ignore;
  }
}

function newsChild(local: string): number {
  switch (local) {
    case 'publication_date':
      return Field.NewsPublicationDate;
    case 'title':
      return Field.NewsTitle;
    case 'keywords':
      return Field.NewsKeywords;
    default:
      return Ctx.Ignore;
  }
}
