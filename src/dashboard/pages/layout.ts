// The frame of every page: head with the style sheets and scripts (files of this server only:
// the CSP allows nothing inline), the navigation of a signed-in visitor, and the main content.
import { html, type SafeHtml } from '../html.js';
import type { Visitor } from '../session.js';

/** What a page puts into the frame. */
export interface PageFrame {
  title: string;
  visitor: Visitor;
  main: SafeHtml;
  /** Extra style sheets and scripts (module scripts run after the classic ones, in order). */
  styles?: string[];
  classicScripts?: string[];
}

/** The one script every page loads: the copy button and the charts (src/dashboard/page/). */
const PAGE_SCRIPT = '/assets/page/main.js';

/** Use for a hidden CSRF field; every form of the dashboard has one. */
export function csrfField(visitor: Visitor): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${visitor.csrf}">`;
}

function nav(visitor: Visitor): SafeHtml {
  if (!visitor.account) return html`<nav><a href="/signin">Sign in</a></nav>`;
  return html`<nav>
    <a href="/">Account and keys</a>
    <a href="/markets">Markets</a>
    <span class="who">${visitor.account.name}</span>
    <form method="post" action="/signout" class="inline">${csrfField(visitor)}<button type="submit">Sign out</button></form>
  </nav>`;
}

/** Use to wrap a page's content in the common frame. */
export function layout(frame: PageFrame): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} - msnap</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/dashboard.css">
${(frame.styles ?? []).map((href) => html`<link rel="stylesheet" href="${href}">`)}
${(frame.classicScripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
<script type="module" src="${PAGE_SCRIPT}"></script>
</head>
<body>
<header><a class="brand" href="/">msnap</a>${nav(frame.visitor)}</header>
<main>
<h1>${frame.title}</h1>
${frame.main}
</main>
</body>
</html>
`;
}

/** Use for a one-sentence problem shown above a form or in place of a page. */
export function notice(kind: 'error' | 'info', text: string | undefined): SafeHtml {
  return text ? html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>` : html``;
}

/** Use for times on pages: UTC, to the second, the same everywhere. */
export function utc(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
}
