/* SPDX-License-Identifier: MIT */
/*
 * view_picker: the picker's state, for the views that wrap the picker
 * (view_proposals.c's map picker) and so need its size.
 */
#ifndef BUGCODER_TUI_VIEW_PICKER_H
#define BUGCODER_TUI_VIEW_PICKER_H

#include <stddef.h>

#include "core/base/buf.h"
#include "tui/doc.h"

struct picker {
	size_t dim;
	struct buf filter;
	size_t *vis;		/* indexes of the codes shown */
	size_t nr_vis;
	size_t sel;		/* index into vis */
	size_t top;		/* first row of the list shown */
	int filtering;		/* `/` typed: keys go to the filter */
	struct doc detail;	/* of the highlighted code */
	int list_y, list_x, list_rows, list_cols;
	int det_y, det_x, det_rows, det_cols;
};

#endif
