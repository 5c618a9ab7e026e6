// The list envelopes: `{items, total, limit, offset, warning?}` (v1, v2) and v4's, which adds
// count, has_more and next_offset and always carries warning. Built as text around a ready JSON
// array so snapshot pages stay one concatenation.
import { warningText, type ListPage } from '../list-limit.js';

/** Use to close a list body after its items: `,"total":...}` in the dialect's envelope. */
export function envelopeTail(page: ListPage, v4: boolean): string {
  const warning = warningText(page.warnings);
  if (!v4) {
    return (
      ',"total":' +
      page.total +
      ',"limit":' +
      page.limit +
      ',"offset":' +
      page.offset +
      (warning === undefined ? '' : ',"warning":' + JSON.stringify(warning)) +
      '}'
    );
  }
  const hasMore = page.offset + page.count < page.total;
  return (
    ',"total":' +
    (page.includeTotal ? page.total : 'null') +
    ',"limit":' +
    page.limit +
    ',"offset":' +
    page.offset +
    ',"count":' +
    page.count +
    ',"has_more":' +
    hasMore +
    ',"next_offset":' +
    (hasMore ? page.offset + page.count : 'null') +
    ',"warning":' +
    (warning === undefined ? 'null' : JSON.stringify(warning)) +
    '}'
  );
}
