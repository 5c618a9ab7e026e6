// File-system failures as a user reads them: the reason, not errno text naming a temp file.

/** The readable reason for a failed open/stat/rename, without the temp file's name in it. */
export function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
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
