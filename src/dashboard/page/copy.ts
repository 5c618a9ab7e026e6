// The copy button next to a new key: copies the text of the element it names and says so.

/** The part of navigator.clipboard the button needs (tests pass their own). */
export interface ClipboardLike {
  writeText(text: string): Promise<void>;
}

/** Use on click: copies `text`; false when the browser refused (the key stays selectable by hand). */
export async function copyText(text: string, clipboard: ClipboardLike | undefined): Promise<boolean> {
  if (!clipboard || text === '') return false;
  try {
    await clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** Use once per page: every `button[data-copy=ID]` copies the text of element #ID. */
export function bindCopyButtons(doc: Document): void {
  for (const button of doc.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
    button.addEventListener('click', async () => {
      const target = doc.getElementById(button.dataset.copy ?? '');
      const ok = await copyText(target?.textContent?.trim() ?? '', navigator.clipboard);
      const note = button.parentElement?.querySelector<HTMLElement>('.copied');
      if (note) {
        note.hidden = false;
        note.textContent = ok ? 'Copied' : 'Select the key and copy it by hand';
      }
    });
  }
}
