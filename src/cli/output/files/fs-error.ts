// File-system failures as a user reads them: the reason, not errno text naming a temp file.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The readable reason for a failed open/stat/rename, without the temp file's name in it. `path`:
 * the file being created, so ENOENT in a directory that exists (/proc) is not "no such directory".
 */
export function describeFsError(err: unknown, path?: string): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' && path !== undefined && existsSync(dirname(path))) return `${dirname(path)} does not take new files`;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOENT':
      return 'no such directory';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'EISDIR':
      return 'it is a directory';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on device';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'EDQUOT':
      return 'disk quota exceeded';
    case 'EFBIG':
      return 'file too large';
    case 'EIO':
      return 'input/output error';
    case 'ENXIO':
    case 'ECONNREFUSED':
      return 'nothing is reading from it';
    default:
      return (err as Error).message;
  }
}
