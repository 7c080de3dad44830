/* fs.c - file-system helpers (see fs.h). */
#define _XOPEN_SOURCE 700 /* nftw */

#include "common/fs.h"

#include "common/error.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int sbx_rmtree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return errno == ENOENT
			       ? SBX_OK
			       : sbx_error_set(SBX_EIO, "cannot stat '%s': %s",
					       path, strerror(errno));
	if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
		return sbx_error_set(SBX_EIO, "cannot remove '%s': %s", path,
				     strerror(errno));
	return SBX_OK;
}

bool sbx_path_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}
