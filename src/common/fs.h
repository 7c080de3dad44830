/* fs.h - file-system helpers the engine's snapshot and bulk-load code share
 * (internal). */
#ifndef SBX_COMMON_FS_H
#define SBX_COMMON_FS_H

#include <stdbool.h>

/* Remove a directory tree (not following links); a missing one is fine.
 * SBX_OK or SBX_EIO with the message set. */
int sbx_rmtree(const char *path);
/* Whether anything exists at path. */
bool sbx_path_exists(const char *path);

#endif
