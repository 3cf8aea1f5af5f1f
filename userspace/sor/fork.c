// SPDX-License-Identifier: MIT
/*
 * Fork: the child's table is its own (references = entries, the other
 * threads are gone); a vfork child, running in its parent's memory, must
 * leave the parent's table alone.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "usor_atomic.h"
#include "usor_internal.h"

/* The process whose descriptors the table describes (usor_table_borrowed). */
static pid_t table_pid;

void usor_table_own(void)
{
	USOR_STORE_REL(&table_pid, usor_r->getpid());
}

void usor_fork_prepare(void)
{
}

void usor_fork_parent(void)
{
}

void usor_fork_child(void)
{
	usor_table_own();
	usor_fd_fork_child();
	usor_park_fork_child();
}

/*
 * Whether this is a vfork (or CLONE_VM) child running in its parent's
 * memory: its descriptors are its own, the table is the parent's, so it
 * must not change the table (it dup2s and closes before exec).
 */
bool usor_table_borrowed(void)
{
	pid_t owner = USOR_LOAD_ACQ(&table_pid);

	return owner && usor_r->getpid() != owner;
}
