/* SPDX-License-Identifier: MIT */
/*
 * Inside controller/fleet; not for other modules. Calls go one way: fleet_http.c (the
 * fan-out) -> fleet_tls.c (the TLS material of every connection).
 */
#pragma once

#include <curl/curl.h>

#include "controller/fleet/fleet.h"

/*
 * The controller's TLS material, read and checked once per client: the CA the agents'
 * certificates must chain to, the client certificate (with its chain) and its key.
 * libcurl would read and decode the three files again for every new connection (with
 * OpenSSL 3, decoding is most of a connection's own CPU and a few KB of its memory);
 * instead every connection's SSL_CTX is given these, by reference. It keeps the
 * sessions the agents issue too, so that a reconnection resumes one (fleet_tls.c).
 */
struct fleet_tls;

/* Read, decode and check the files (the key must match the certificate). *ret owned by the caller. */
int fleet_tls_load(const struct http_tls *tls, struct fleet_tls **ret, struct errbuf *e);
void fleet_tls_free(struct fleet_tls *t);

/* The backend must be OpenSSL (the agents' certificate purpose is checked through it). */
int fleet_tls_check_backend(struct errbuf *e);

/*
 * A CURLOPT_SSL_CTX_FUNCTION (CURLOPT_SSL_CTX_DATA: the fleet_tls): trust the CA, present
 * the certificate, and require that the agent's certificate be for a server.
 */
CURLcode fleet_tls_on_ctx(CURL *curl, void *ssl_ctx, void *userdata);

/* The connection easy's last transfer used resumed a session (fleet_tls.c: the sessions). */
bool fleet_tls_resumed(CURL *easy);
