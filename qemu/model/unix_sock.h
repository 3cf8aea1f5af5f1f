/* Listening UNIX stream sockets for the model's servers. */
#ifndef EUSRV_MODEL_UNIX_SOCK_H
#define EUSRV_MODEL_UNIX_SOCK_H

/*
 * Bind and listen on a non-blocking UNIX stream socket at PATH, replacing
 * a stale socket file but refusing one a live process still accepts on.
 * Returns the socket or -errno; WHAT names it in error messages.
 */
int unix_listen(const char *path, const char *what);

#endif /* EUSRV_MODEL_UNIX_SOCK_H */
