/* SPDX-License-Identifier: MIT */
/* Force-included into every unit test: the prototypes of all suite_NAME() functions. */
#pragma once
#define SUITE(name) int suite_##name(void);
#include "unit_suites.h"
#undef SUITE
