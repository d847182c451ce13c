/* SPDX-License-Identifier: MIT */
/* The "dcb" driver (trust, dscp_to_priority, pfc, ets over dcbnl). */
#pragma once

#include "drivers/driver.h"

extern const struct driver_ops dcb_driver;

/* Where lldpad is looked for ("/proc"); tests point it at a fake tree. */
extern const char *dcb_driver_proc_root;
