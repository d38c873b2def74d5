import type { SitemapImage, SitemapNews, SitemapVideo } from '../../core/types.js';
import { Field } from './element-context.js';
import { parseDecimal, parseYesNo, splitKeywords, textOrNull } from './field-values.js';

/** An `<image:image>` being read; `loc` stays empty until its `<image:loc>` arrives. */
export function newImage(): SitemapImage {
  return { loc: '', title: null, caption: null, geoLocation: null, license: null };
}

/** A `<video:video>` being read, every field absent. */
export function newVideo(): SitemapVideo {
  return {
    thumbnailLoc: null,
    title: null,
    description: null,
    contentLoc: null,
    playerLoc: null,
    duration: null,
    expirationDate: null,
    rating: null,
    viewCount: null,
    publicationDate: null,
    familyFriendly: null,
    requiresSubscription: null,
    live: null,
    uploader: null,
    tags: [],
  };
}

/** A `<news:news>` being read, every field absent. */
export function newNews(): SitemapNews {
  return { publicationName: null, publicationLanguage: null, publicationDate: null, title: null, keywords: [] };
}

/** Stores one `<image:*>` field. */
export function setImageField(image: SitemapImage, field: number, text: string): void {
  switch (field) {
    case Field.ImageLoc:
      if (image.loc === '') image.loc = text.trim();
      break;
    case Field.ImageTitle:
      image.title = textOrNull(text);
      break;
    case Field.ImageCaption:
      image.caption = textOrNull(text);
      break;
    case Field.ImageGeoLocation:
      image.geoLocation = textOrNull(text);
      break;
    case Field.ImageLicense:
      image.license = textOrNull(text);
      break;
  }
}

/** Stores one `<video:*>` field; numbers and yes/no flags that do not parse become null. */
export function setVideoField(video: SitemapVideo, field: number, text: string): void {
  switch (field) {
    case Field.VideoThumbnailLoc:
      video.thumbnailLoc = textOrNull(text);
      break;
    case Field.VideoTitle:
      video.title = textOrNull(text);
      break;
    case Field.VideoDescription:
      video.description = textOrNull(text);
      break;
    case Field.VideoContentLoc:
      video.contentLoc = textOrNull(text);
      break;
    case Field.VideoPlayerLoc:
      video.playerLoc = textOrNull(text);
      break;
    // Google: duration 1..28800 s, rating 0.0..5.0; out-of-range values are treated as absent.
    case Field.VideoDuration:
      video.duration = parseDecimal(text, 0, 28_800);
      break;
    case Field.VideoExpirationDate:
      video.expirationDate = textOrNull(text);
      break;
    case Field.VideoRating:
      video.rating = parseDecimal(text, 0, 5);
      break;
    case Field.VideoViewCount:
      video.viewCount = parseDecimal(text, 0, Number.MAX_SAFE_INTEGER);
      break;
    case Field.VideoPublicationDate:
      video.publicationDate = textOrNull(text);
      break;
    default:
      setVideoFlagOrText(video, field, text);
  }
}

function setVideoFlagOrText(video: SitemapVideo, field: number, text: string): void {
  switch (field) {
    case Field.VideoFamilyFriendly:
      video.familyFriendly = parseYesNo(text);
      break;
    case Field.VideoRequiresSubscription:
      video.requiresSubscription = parseYesNo(text);
      break;
    case Field.VideoLive:
      video.live = parseYesNo(text);
      break;
    case Field.VideoUploader:
      video.uploader = textOrNull(text);
      break;
    case Field.VideoTag: {
      const tag = textOrNull(text);
      if (tag !== null) video.tags.push(tag);
      break;
    }
  }
}

/** Stores one `<news:*>` field (publication name and language included). */
export function setNewsField(news: SitemapNews, field: number, text: string): void {
  switch (field) {
    case Field.NewsName:
      news.publicationName = textOrNull(text);
      break;
    case Field.NewsLanguage:
      news.publicationLanguage = textOrNull(text);
      break;
    case Field.NewsPublicationDate:
      news.publicationDate = textOrNull(text);
      break;
    case Field.NewsTitle:
      news.title = textOrNull(text);
      break;
    case Field.NewsKeywords:
      news.keywords = splitKeywords(text);
      break;
  }
}
