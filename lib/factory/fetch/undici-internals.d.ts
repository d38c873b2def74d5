// Types of the undici files `undici-parts.ts` loads one by one: each is what undici's index re-exports under the name.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const part: typeof Agent;
  export default part;
}
declare module 'undici/lib/core/connect.js' {
  import type { buildConnector } from 'undici';
  const part: typeof buildConnector;
  export default part;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  const part: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  export default part;
}
declare module 'undici/lib/core/symbols.js' {
  const part: { readonly kParser: symbol };
  export default part;
}
