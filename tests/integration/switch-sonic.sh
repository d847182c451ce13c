#!/usr/bin/env bash
# sonic switch driver through a private sshd and switchsim: apply, read-back, idempotent
# re-apply, rollback, drift, snapshot restore.
. "$NETTUNE_TOP/tests/lib/common.sh"
. "$NETTUNE_TOP/tests/lib/sshd.sh"
. "$NETTUNE_TOP/tests/lib/switch_cases.sh"
require_sshd
switch_cases sonic Ethernet0,Ethernet4 9100 no
