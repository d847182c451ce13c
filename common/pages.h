/* SPDX-License-Identifier: MIT */
/*
 * Buffers of their own mapping (mmap), for sizes a peer's request chooses (a probe's
 * message_size): given back to the kernel the moment they are freed, whatever the
 * allocator would keep in its arenas, so a process's memory does not stay at the
 * largest request it served.
 */
#pragma once

#include <stddef.h>

/* size bytes, zeroed, page-aligned; NULL (errno set) on failure. */
void *pages_alloc(size_t size);
/* Give p (from pages_alloc, of that size) back; accepts NULL. */
void pages_free(void *p, size_t size);
