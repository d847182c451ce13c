/* SPDX-License-Identifier: MIT */
#pragma once
#ifndef NETTUNE_VERSION
#define NETTUNE_VERSION "0.1.0"
#endif
