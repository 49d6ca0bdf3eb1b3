/*
 * Removal of a sandbox directory that never leaves it: every step is taken
 * relative to an open directory (openat, unlinkat), so a tree of any depth
 * (deeper than PATH_MAX too) is removed, symlinks are removed and never
 * followed, and the walk never crosses into another mount (a bind mount
 * inside a sandbox would otherwise hand it files outside the state
 * directory).  Directories the tree's owner may not write or search (a
 * tree made read-only) are given those permissions as they are entered:
 * only directories inside the tree, each checked to be the one met, never
 * through a link or across a mount.
 */
#ifndef SBX_LOCAL_REMOVE_H
#define SBX_LOCAL_REMOVE_H

#include <sbx/backend.h>

/* Remove the entry `name` of the directory open as `parent_fd` and, when it
 * is a directory, everything below it.  `shown` is the entry's path for
 * messages.  An absent entry is fine.  When the entry or anything below it
 * is a mount point (another mount id, or another device where the kernel
 * reports no mount ids), the walk stops there: nothing below the mount is
 * touched and SBX_ERR_INTERNAL names the mount point.  SBX_ERR_INTERNAL
 * naming the path for any other entry that cannot be removed.  `parent_fd`
 * itself is not changed. */
sbx_status local_remove_tree(int parent_fd, const char *name, const char *shown,
                             sbx_error *err);

#endif
