/* Listening UNIX stream sockets for the model's servers (see unix_sock.h). */
#include "unix_sock.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"

/* Pending connections per socket before the model accepts them. */
#define UNIX_BACKLOG		16

int unix_listen(const char *path, const char *what)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, err;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		log_err("%s %s: path longer than %zu bytes", what, path,
			sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		log_err("%s %s: socket: %s", what, path, strerror(errno));
		return err;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ||
	    errno == EAGAIN) {
		log_err("%s %s: another process is serving it", what, path);
		close(fd);
		return -EADDRINUSE;
	}
	close(fd);
	/* Left behind by a model that died: take it over. */
	if (unlink(path) < 0 && errno != ENOENT) {
		err = -errno;
		log_err("%s %s: removing the old socket: %s", what, path,
			strerror(errno));
		return err;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		log_err("%s %s: socket: %s", what, path, strerror(errno));
		return err;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, UNIX_BACKLOG) < 0) {
		err = -errno;
		log_err("%s %s: bind/listen: %s", what, path, strerror(errno));
		close(fd);
		return err;
	}
	return fd;
}
