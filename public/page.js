// What every console module shares: the typed element lookup, and a thrown value's message.

/**
 * @overload
 * @param {string} selector
 * @returns {HTMLElement}
 */
/**
 * @template {keyof HTMLElementTagNameMap} K
 * @overload
 * @param {string} selector
 * @param {K} tag
 * @returns {HTMLElementTagNameMap[K]}
 */
/**
 * The element `selector` finds on the page (an `input`, a `select`... when `tag` names it). The page and the scripts
 * ship together: a missing element, or one of another kind, is a programming error, thrown naming the selector.
 * @param {string} selector
 * @param {keyof HTMLElementTagNameMap} [tag]
 * @returns {HTMLElement}
 */
export function $(selector, tag) {
  const element = document.querySelector(selector);
  if (element === null) throw new Error(`console: no element matches ${selector}`);
  if (!(element instanceof HTMLElement) || (tag !== undefined && element.localName !== tag)) {
    throw new Error(`console: ${selector} is a <${element.localName}>, not ${tag === undefined ? 'an HTML element' : `a <${tag}>`}`);
  }
  return element;
}

/**
 * What went wrong, in words: an Error's message (the API's, a network failure's), anything else as text.
 * @param {unknown} error
 * @returns {string}
 */
export function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}
