// The interface a web site mounted beside the API implements (the dashboard does): the server
// defines it, so the server never depends on what plugs into it.
import type { AppRequest } from './app.js';

/** A request as a mounted site sees it: the API's request plus its body, read by the listener with a size cap. */
export interface SiteRequest extends AppRequest {
  /** The raw body (url-encoded form); empty for GET. */
  body: string;
}

/** A mounted site's answer (a header may repeat, as Set-Cookie does). */
export interface SiteResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

/** Use to mount a site on the listener: it answers only the paths it claims; the API answers every other. */
export interface Site {
  claims(url: string): boolean;
  handle(req: SiteRequest): Promise<SiteResponse>;
}
