/* SPDX-License-Identifier: MIT */
/* The agent's HTTP API (docs/api.md): routes over the transaction, journal and probes. */
#pragma once

#include <jansson.h>

#include "agent/config/config.h"
#include "agent/http/http.h"
#include "agent/journal/journal.h"

struct api {
        const struct agent_config *config;
        struct journal *journal;        /* shared, serialised by SQLite */
};

/* Answer with a JSON document (takes j; NULL: 500 out of memory). */
void api_reply_json(struct http_response *resp, int status, json_t *j);

/* http_handler_t: userdata is a struct api. */
void api_handle(void *userdata, const struct http_request *req, struct http_response *resp);
