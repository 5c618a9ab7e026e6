import { describe, expect, it } from 'vitest';
import { escapeHtml, html } from './html.js';

describe('html', () => {
  it('escapes text values, keeps markup built by the tag, flattens lists and drops empty values', () => {
    const name = '<script>alert("x")</script>&\'';
    const row = html`<td>${name}</td>`;
    expect(row.text).toBe('<td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</td>');
    expect(html`<tr>${row}${[html`<td>${1}</td>`, 'a<b']}${null}${false}${undefined}</tr>`.text).toBe(
      `<tr>${row.text}<td>1</td>a&lt;b</tr>`,
    );
    expect(html`<a href="${'" onclick="x'}">`.text).toBe('<a href="&quot; onclick=&quot;x">');
    expect(escapeHtml('plain')).toBe('plain');
  });
});
