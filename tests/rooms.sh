#!/bin/sh
# SPDX-License-Identifier: MIT
# The include direction between rooms, checked (`make check-layering`).
#
# The program's layers, bottom up: core/ (the study), exports/ (files
# written from it), tui/ (the screens, which may write an export), cli/
# (the commands, which may use them all).  Inside core/,
# the rooms, bottom up:
#
#   base    buffers, errors, text, hashing, privilege: no study
#   stats   the agreement coefficients: pure arithmetic on count tables
#   store   the study file: connection, statements, transactions, the
#           audit log's chain
#   study   the study model: members and access, items, rounds, the
#           codebook, labels, adjudication, agreement, replay
#   github  fetching issues and fixes from GitHub into the study
#
# A file may include headers of its own room and of the rooms below it,
# never of a room above.  Prints each include that runs upward and fails.
rank() {
	case $1 in
	core/base) echo 1 ;; core/stats) echo 2 ;; core/store) echo 3 ;;
	core/study) echo 4 ;; core/github) echo 5 ;;
	exports) echo 6 ;; tui) echo 7 ;; cli) echo 8 ;; *) echo 0 ;;
	esac
}
bad=0
for f in core/*/*.[ch] exports/*.[ch] tui/*.[ch] cli/*.[ch]; do
	[ -f "$f" ] || continue
	room=${f%/*}
	r=$(rank "$room")
	if [ "$r" = 0 ]; then
		echo "$f: core/${room#core/} is not a room (see tests/rooms.sh)" >&2
		bad=1
		continue
	fi
	for h in $(sed -n 's/^#include "\([a-z]*\(\/[a-z]*\)\{0,1\}\)\/[a-z_0-9.]*\.h".*/\1/p' "$f"); do
		hr=$(rank "$h")
		if [ "$hr" -gt "$r" ]; then
			echo "$f includes $h/: an include runs up the layers (see tests/rooms.sh)" >&2
			bad=1
		fi
	done
done
exit $bad
