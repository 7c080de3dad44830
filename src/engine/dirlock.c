/*
 * dirlock.c - one process per store directory, said in words. Opening takes
 * an exclusive flock on DIR/saltbox.pid and writes our pid into it, so a
 * second opener can name the holder ("DIR is in use by another saltbox
 * process (pid N)") instead of passing on RocksDB's raw LOCK error. The
 * lock dies with its descriptor, so a crashed holder never leaves it stale.
 */
#include "engine/engine.h"

#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static int in_use_error(const char *path, long pid)
{
	if (pid == (long)getpid())
		return sbx_error_set(SBX_EBUSY, "%s is already open in this "
						"process", path);
	if (pid > 0)
		return sbx_error_set(SBX_EBUSY, "%s is in use by another saltbox "
						"process (pid %ld)", path, pid);
	return sbx_error_set(SBX_EBUSY, "%s is in use by another process",
			     path);
}

int engine_dirlock_acquire(int *fd_out, const char *path)
{
	*fd_out = -1;
	char name[4096];
	if (snprintf(name, sizeof name, "%s/saltbox.pid", path) >= (int)sizeof name)
		return sbx_error_set(SBX_EINVAL, "path too long: '%s'", path);
	int fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (errno == EROFS || errno == EACCES)
			return SBX_OK; /* a read-only directory: RocksDB decides */
		return sbx_error_set(SBX_EIO, "cannot open '%s': %s", name,
				     strerror(errno));
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		char text[32] = "";
		ssize_t n = pread(fd, text, sizeof text - 1, 0);
		close(fd);
		text[n > 0 ? n : 0] = 0;
		return in_use_error(path, strtol(text, NULL, 10));
	}
	char text[32];
	int n = snprintf(text, sizeof text, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)n, 0) != n) {
		/* the lock still works; only the pid in the message is lost */
	}
	*fd_out = fd;
	return SBX_OK;
}

void engine_dirlock_release(int fd)
{
	if (fd >= 0)
		close(fd); /* drops the flock; the file stays for the next opener */
}

int engine_open_error(char *err, const char *path, const char *what)
{
	/* "IO error: While lock file: DIR/LOCK: Resource temporarily
	 * unavailable": held by a process that took no pid file. */
	if (err && strstr(err, "lock file")) {
		free(err);
		return in_use_error(path, 0);
	}
	/* as engine_rocks_error(), kept here so this file calls nothing above */
	int rc = sbx_error_set(SBX_EIO, "%s: %s", what, err ? err : "?");
	free(err);
	return rc;
}
