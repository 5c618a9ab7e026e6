// The dashboard's static files, read once when the server starts: its style sheet, the page
// script compiled from src/dashboard/page/ (next to this module in dist/), and uPlot's script and
// style sheet from the installed package. Nothing is fetched from another origin.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DASHBOARD_CSS, FAVICON_SVG } from './styles.js';

/** One static file: its Content-Type and text. */
export interface Asset {
  type: string;
  body: string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** Use once per server: every asset by its path under /assets/. */
export function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>([
    ['dashboard.css', { type: CSS, body: DASHBOARD_CSS }],
    ['favicon.svg', { type: 'image/svg+xml', body: FAVICON_SVG }],
  ]);
  const require = createRequire(import.meta.url);
  assets.set('uPlot.iife.min.js', { type: JS, body: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8') });
  assets.set('uPlot.min.css', { type: CSS, body: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8') });
  // Built by `npm run build` (tsconfig.page.json); absent when the core runs from source in unit tests.
  const pageDir = fileURLToPath(new URL('./page/', import.meta.url));
  if (existsSync(pageDir)) {
    for (const name of readdirSync(pageDir)) {
      if (name.endsWith('.js') && !name.endsWith('.test.js')) assets.set(`page/${name}`, { type: JS, body: readFileSync(`${pageDir}${name}`, 'utf8') });
    }
  }
  return assets;
}
