/* SPDX-License-Identifier: MIT */
/* The agent's HTTP API (docs/api.md): routes over the transaction, journal and probes. */
#pragma once

#include "config.h"
#include "http.h"
#include "journal.h"

struct api {
        const struct agent_config *config;
        struct journal *journal;        /* shared, serialised by SQLite */
};

/* http_handler_t: userdata is a struct api. */
void api_handle(void *userdata, const struct http_request *req, struct http_response *resp);
