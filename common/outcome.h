/* SPDX-License-Identifier: MIT */
/*
 * One code space for what became of a command, a request or a node's step: the exit
 * codes of both programs (docs: "Exit codes"), the API's HTTP statuses and the
 * controller's per-node results are made from it, at the edge, once.
 *
 * Inside, functions return -errno (STYLE.md); outcome_of_errno() is the one mapping
 * from an errno to an outcome. A caller that knows more (a gate rolled the change
 * back, a change waits for its confirmation) says so with the outcome itself.
 */
#pragma once

enum outcome {
        OUTCOME_OK = 0,                 /* success; plan/drift ran; apply committed */
        OUTCOME_ROLLED_BACK = 1,        /* apply verified badly and was rolled back; drift found drift */
        OUTCOME_INVALID = 2,            /* invalid input or usage, or a refusal: nothing was changed */
        OUTCOME_RUNTIME = 3,            /* runtime failure: whatever was touched was restored */
        OUTCOME_PENDING = 4,            /* the change waits for its confirmation */
        OUTCOME_MAX,
};

/*
 * r >= 0: OUTCOME_OK. A refusal of what was asked — -EINVAL, -ENOENT (no such file,
 * interface, transaction), -ENODEV (no such device), -EOPNOTSUPP (not supported
 * here), -ERANGE, -E2BIG,
 * -ENAMETOOLONG, -EEXIST, -ENOTEMPTY, -EPERM (refused here: a state directory
 * that is not ours, plain HTTP off loopback) — is OUTCOME_INVALID; any other errno
 * (the machine, the network, a peer) is OUTCOME_RUNTIME.
 */
enum outcome outcome_of_errno(int r);

/*
 * The HTTP status of a failed request: 400 for what outcome_of_errno() calls invalid,
 * 409 for -EBUSY (another transaction or measurement), 503 for -EAGAIN, else 500. A
 * route answers 404 itself for a resource its URL names that does not exist.
 */
int outcome_http_status(int r);

/* What a client makes of an HTTP status: 2xx OK, 4xx INVALID (nothing was changed), else RUNTIME. */
enum outcome outcome_of_http_status(int status);

/* "ok", "rolled_back", "invalid", "runtime", "pending" */
const char *outcome_name(enum outcome o);
