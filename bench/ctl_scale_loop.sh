#!/usr/bin/env bash
# Benchmark: ten consecutive SQLite rollouts of 10,000 nodes against the load generator,
# each of which must commit every node (`make bench-scale-loop`; LOOP=N for another
# count). bench/ctl_scale.sh in its loop mode: its own section and goal in
# bench/RESULTS.md, beside those of `make bench-scale`.
LOOP=${LOOP:-10} SCALE_NAME=ctl_scale_loop exec "$(dirname "$0")/ctl_scale.sh"
