/* SPDX-License-Identifier: MIT */
/*
 * analysis_r: exports/analysis.R as a C string, for the replication
 * package (package.c fills in the report's options).  analysis_r.inc is
 * made from analysis.R by the Makefile.
 */
extern const char analysis_r[];

const char analysis_r[] =
#include "exports/analysis_r.inc"
;
