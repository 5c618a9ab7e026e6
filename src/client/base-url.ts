// The service's base URL: the default (a local `msnap serve`) and the one check every source of
// it (flag, environment, stored key, the library's option) goes through.
import { UsageError } from '../errors.js';

/** The service URL when no flag, environment variable, stored key or option names one (the default `msnap serve`). */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787';

/** Use to validate a base URL from any source. */
export function checkBaseUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${source}: '${value}' is not a URL (like ${DEFAULT_BASE_URL})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source}: '${value}' must be an http:// or https:// URL`);
  }
  // msnap adds the API's own path (/api/v1/…, /v4/…): one given here would be asked twice.
  const apiPath = /\/(api\/v1|api|v1|v2|v4)\/*$/i.exec(url.pathname)?.[0];
  if (apiPath !== undefined) {
    const root = value.replace(/\/+$/, '').slice(0, -apiPath.replace(/\/+$/, '').length);
    throw new UsageError(`${source}: '${value}' ends in the API path ${apiPath.replace(/\/+$/, '')}, which msnap adds itself`, `drop it: ${root}`);
  }
  return value.replace(/\/+$/, '');
}
