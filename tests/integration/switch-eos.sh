#!/usr/bin/env bash
# eos switch driver through a private sshd and switchsim: apply, read-back, idempotent
# re-apply, rollback, commit-confirm expiry, drift, snapshot restore.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/switch_cases.sh"
require_sshd
switch_cases eos Ethernet1,Ethernet2 9100 yes
