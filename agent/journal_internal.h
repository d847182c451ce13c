/* SPDX-License-Identifier: MIT */
/* Shared by journal.c (writes) and journal_read.c (queries); not for other modules. */
#pragma once

#include <sqlite3.h>

#include "journal.h"

sqlite3 *journal_db(struct journal *j);
const char *journal_path(struct journal *j);
