-- A journal written by nettune-agent before layers (commit f3e2ae2, schema version 8):
-- 'apply' of pol-a (mga0 MTU 1500 -> 9000), then of pol-b (mga0 and mgb0 -> 4000; mgb0 was 1600).
-- Made on veth in a namespace, dumped with Python's sqlite3 iterdump; tests/integration/agent-layers-migrate.sh loads it.
BEGIN TRANSACTION;
CREATE TABLE revisions ( rev INTEGER PRIMARY KEY AUTOINCREMENT, tx INTEGER NOT NULL REFERENCES transactions(id), policy_json TEXT, committed_ms INTEGER NOT NULL);
INSERT INTO "revisions" VALUES(1,1,'{
  "apiVersion": "nettune/v1",
  "commit": {
    "confirm_timeout_s": 0
  },
  "kind": "Policy",
  "metadata": {
    "labels": {},
    "name": "pol-a"
  },
  "selector": {},
  "spec": {
    "mtu": 9000
  },
  "targets": {
    "interfaces": [
      "mga0"
    ],
    "switches": []
  },
  "verify": {
    "duration_ms": 3000,
    "max_regression_pct": 20,
    "message_size": 65536,
    "min_gbps": 0.0,
    "on_baseline_failure": "fail",
    "on_inconclusive": "retry",
    "probe": "none",
    "runs": 3,
    "settle_ms": 0,
    "streams": 1
  }
}',1796683524300);
INSERT INTO "revisions" VALUES(2,2,'{
  "apiVersion": "nettune/v1",
  "commit": {
    "confirm_timeout_s": 0
  },
  "kind": "Policy",
  "metadata": {
    "labels": {},
    "name": "pol-b"
  },
  "selector": {},
  "spec": {
    "mtu": 4000
  },
  "targets": {
    "interfaces": [
      "mga0",
      "mgb0"
    ],
    "switches": []
  },
  "verify": {
    "duration_ms": 3000,
    "max_regression_pct": 20,
    "message_size": 65536,
    "min_gbps": 0.0,
    "on_baseline_failure": "fail",
    "on_inconclusive": "retry",
    "probe": "none",
    "runs": 3,
    "settle_ms": 0,
    "streams": 1
  }
}',1796683524346);
CREATE TABLE snapshot_sets ( tx INTEGER PRIMARY KEY REFERENCES transactions(id), rows_json TEXT NOT NULL);
INSERT INTO "snapshot_sets" VALUES(1,'[{"fields":1,"kind":0,"state":{"mtu":1500},"target":"mga0"}]');
INSERT INTO "snapshot_sets" VALUES(2,'[{"fields":1,"kind":0,"state":{"mtu":9000},"target":"mga0"},{"fields":1,"kind":0,"state":{"mtu":1600},"target":"mgb0"}]');
CREATE TABLE steps ( tx INTEGER NOT NULL REFERENCES transactions(id), state TEXT NOT NULL, at_ms INTEGER NOT NULL);
INSERT INTO "steps" VALUES(1,'planned',1796683524280);
INSERT INTO "steps" VALUES(1,'snapshotted',1796683524280);
INSERT INTO "steps" VALUES(1,'applying',1796683524280);
INSERT INTO "steps" VALUES(1,'applied',1796683524300);
INSERT INTO "steps" VALUES(1,'verifying',1796683524300);
INSERT INTO "steps" VALUES(1,'committed',1796683524300);
INSERT INTO "steps" VALUES(2,'planned',1796683524335);
INSERT INTO "steps" VALUES(2,'snapshotted',1796683524335);
INSERT INTO "steps" VALUES(2,'applying',1796683524335);
INSERT INTO "steps" VALUES(2,'applied',1796683524346);
INSERT INTO "steps" VALUES(2,'verifying',1796683524346);
INSERT INTO "steps" VALUES(2,'committed',1796683524346);
CREATE TABLE transaction_changes ( tx INTEGER PRIMARY KEY REFERENCES transactions(id), changes_json TEXT NOT NULL);
INSERT INTO "transaction_changes" VALUES(1,'[{"field":"mtu","from":1500,"key":"mtu","target":"mga0","to":9000}]');
INSERT INTO "transaction_changes" VALUES(2,'[{"field":"mtu","from":9000,"key":"mtu","target":"mga0","to":4000},{"field":"mtu","from":1600,"key":"mtu","target":"mgb0","to":4000}]');
CREATE TABLE transactions ( id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, policy_name TEXT NOT NULL, policy_json TEXT, state TEXT NOT NULL, result TEXT NOT NULL DEFAULT '', exit_code INTEGER NOT NULL DEFAULT -1, error TEXT, probe_json TEXT, restored_by TEXT NOT NULL DEFAULT '', started_ms INTEGER NOT NULL, finished_ms INTEGER NOT NULL DEFAULT 0, confirm_deadline_ms INTEGER NOT NULL DEFAULT 0, restores_json TEXT, idempotency_key TEXT, saves_json TEXT, rollback_ms REAL);
INSERT INTO "transactions" VALUES(1,'apply','pol-a','{
  "apiVersion": "nettune/v1",
  "commit": {
    "confirm_timeout_s": 0
  },
  "kind": "Policy",
  "metadata": {
    "labels": {},
    "name": "pol-a"
  },
  "selector": {},
  "spec": {
    "mtu": 9000
  },
  "targets": {
    "interfaces": [
      "mga0"
    ],
    "switches": []
  },
  "verify": {
    "duration_ms": 3000,
    "max_regression_pct": 20,
    "message_size": 65536,
    "min_gbps": 0.0,
    "on_baseline_failure": "fail",
    "on_inconclusive": "retry",
    "probe": "none",
    "runs": 3,
    "settle_ms": 0,
    "streams": 1
  }
}','committed','committed',0,NULL,NULL,'',1796683524280,1796683524300,0,NULL,NULL,NULL,NULL);
INSERT INTO "transactions" VALUES(2,'apply','pol-b','{
  "apiVersion": "nettune/v1",
  "commit": {
    "confirm_timeout_s": 0
  },
  "kind": "Policy",
  "metadata": {
    "labels": {},
    "name": "pol-b"
  },
  "selector": {},
  "spec": {
    "mtu": 4000
  },
  "targets": {
    "interfaces": [
      "mga0",
      "mgb0"
    ],
    "switches": []
  },
  "verify": {
    "duration_ms": 3000,
    "max_regression_pct": 20,
    "message_size": 65536,
    "min_gbps": 0.0,
    "on_baseline_failure": "fail",
    "on_inconclusive": "retry",
    "probe": "none",
    "runs": 3,
    "settle_ms": 0,
    "streams": 1
  }
}','committed','committed',0,NULL,NULL,'',1796683524335,1796683524346,0,NULL,NULL,NULL,NULL);
CREATE INDEX transactions_unfinished ON transactions(id) WHERE state NOT IN ('committed', 'rolled_back', 'failed');
CREATE INDEX transactions_rollbacks ON transactions(rollback_ms) WHERE rollback_ms IS NOT NULL;
CREATE INDEX transactions_idempotency_key ON transactions(idempotency_key) WHERE idempotency_key IS NOT NULL;
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('transactions',2);
INSERT INTO "sqlite_sequence" VALUES('revisions',2);
COMMIT;
PRAGMA user_version = 8;
