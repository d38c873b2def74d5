/** Entry filters (include/exclude, path prefixes, locales, since, scope): one pure predicate shared by walks and jobs. */
export { FilterOptionsSchema, ScopeSchema, type FilterOptions, type FilterOptionsInput, type Scope } from '../../core/filter-options.js';
export { compileFilter, type EntryFilter, type FilterCandidate } from './compile-filter.js';
