// The confirmation step of revoking a key: a page of its own (it works without the script), whose
// form is the only one that revokes.
import type { ApiKeyRecord } from '../../store/store.js';
import { html } from '../html.js';
import type { Visitor } from '../session.js';
import { csrfField, layout, utc } from './layout.js';

/** Use to ask before a key is revoked: what goes, and two ways out. */
export function revokePage(visitor: Visitor, key: ApiKeyRecord) {
  return layout({
    title: 'Revoke this key?',
    visitor,
    main: html`<section class="card confirm-revoke">
  <p>Key <code>${key.prefix}…</code>${key.name ? html` (${key.name})` : ''}, created ${utc(key.createdAt)}, stops working at once: every program that uses it gets 401. This cannot be undone.</p>
  <form method="post" action="/keys/revoke" class="inline">${csrfField(visitor)}<input type="hidden" name="id" value="${key.id}"><input type="hidden" name="confirm" value="yes"><button type="submit" class="danger">Revoke the key</button></form>
  <a href="/">Cancel</a>
</section>`,
  });
}
