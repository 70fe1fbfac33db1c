/* SPDX-License-Identifier: MIT */
/*
 * limits: how much text a member may put into one field of the study.
 *
 * Free texts - a memo, a resolution's rationale, a proposed code's name
 * and definition, a settle note, a machine coder's rationale and note,
 * a dialog's draft - are bounded by design, so that no member can grow
 * the study (and everyone's exports and backups) without end: each is
 * at most LIMIT_TEXT_MAX bytes.  The check is made where the text is
 * stored (core/study/label, core/study/adjudicate, core/study/draft, core/study/machine), so it
 * holds whichever way the text came in: a command's argument, a screen's
 * editor or prompt, $EDITOR, a machine's answer.  A refused text changes
 * nothing.
 */
#ifndef BUGCODER_LIMITS_H
#define BUGCODER_LIMITS_H

#include "core/base/err.h"

/* The most bytes a free text may hold: 64 KiB. */
#define LIMIT_TEXT_MAX (64 * 1024)

/* 0 when `text` (NULL is empty) holds at most LIMIT_TEXT_MAX bytes; else
 * -1 with ERR_INPUT naming `what` (e.g. "the memo"), its size and the
 * limit. */
int limit_text(const char *what, const char *text, struct err *e);

#endif
