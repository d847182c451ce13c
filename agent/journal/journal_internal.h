/* SPDX-License-Identifier: MIT */
/* Shared by journal.c (writes) and journal_read.c (queries); not for other modules. */
#pragma once

#include "agent/journal/journal.h"
#include "common/db.h"

struct db *journal_db(struct journal *j);
/* journal_unfinished()'s query (journal_warm() prepares it too). */
extern const char journal_sql_unfinished[];
