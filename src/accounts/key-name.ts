// A key's optional name (`serve keys create --name`, the dashboard's create form): a label its
// owner reads in lists, checked the same way wherever it is given.
import { UsageError } from '../errors.js';

/** The longest key name. */
export const MAX_KEY_NAME_LENGTH = 60;

/** Use on a name as given: trimmed, null when empty; UsageError when too long or holding control characters. */
export function parseKeyName(raw: string | undefined): string | null {
  const name = (raw ?? '').trim();
  if (name === '') return null;
  if (name.length > MAX_KEY_NAME_LENGTH) throw new UsageError(`a key name has at most ${MAX_KEY_NAME_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new UsageError('a key name must not contain control characters');
  return name;
}
