#!/usr/bin/env bash
# nvue switch driver through a private sshd and switchsim: apply, read-back, idempotent
# re-apply, rollback, commit-confirm expiry, drift, snapshot restore.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/switch_cases.sh"
require_sshd
switch_cases nvue swp1,swp2 9100 yes
