// How an API key may appear on screen or in a message: its first characters only.

/**
 * Use wherever a key would be shown (keys list, errors, verbose logs): `msk_abcd…`.
 * Short keys show at most a third of their length, so a mask never reveals most of a key.
 */
export function maskKey(key: string): string {
  const shown = Math.min(8, Math.floor(key.length / 3));
  return `${key.slice(0, shown)}…`;
}

/** Use before putting service-supplied text in a message: replaces every occurrence of `key` by its mask. */
export function redactKey(text: string, key: string | undefined): string {
  if (!key || key.length < 4) return text;
  return text.split(key).join(maskKey(key));
}
