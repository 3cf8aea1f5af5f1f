#!/bin/bash
# Suite 70 (sockets over RDMA with real programs) again, with the patched
# glibc installed system-wide in the nodes (qemu/board start --libc=patched)
# and every program run as it is: no eusrv-run, no LD_PRELOAD.  The same
# RDMA counter checks apply.
exec env EUSRV_SOR_LIBC=patched "$(dirname "$0")/70-sor-apps.sh" "$@"
