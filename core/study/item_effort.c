/* SPDX-License-Identifier: MIT */
/*
 * item_effort: an item's effort figures (days open, comments, the size of
 * its fixes, a repeated change counted once) and the ISO 8601 dates they
 * are counted from.  See item.h.
 */
#include "core/study/item.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/diff.h"

/* Days from the civil date to 1970-01-01 (Howard Hinnant's algorithm,
 * proleptic Gregorian), so no timezone state is involved. */
static long long days_from_civil(int y, int m, int d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int digits(const char *s, int n, int *out)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

int item_parse_date(const char *s, double *out)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, oh = 0, om = 0;
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31,
				     30, 31 };
	double t;

	if (!s || strlen(s) < 10)
		return -1;
	if (digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) ||
	    s[7] != '-' || digits(s + 8, 2, &d))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1])
		return -1;
	if (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400)))
		return -1;	/* not a leap year */
	s += 10;
	if (*s == 'T' || *s == ' ') {
		if (digits(s + 1, 2, &h) || s[3] != ':' ||
		    digits(s + 4, 2, &mi))
			return -1;
		s += 6;
		if (*s == ':') {
			if (digits(s + 1, 2, &sec))
				return -1;
			s += 3;
		}
		if (*s == '.')
			for (s++; isdigit((unsigned char)*s); s++)
				;
		if (h > 23 || mi > 59 || sec > 60)
			return -1;
		if (*s == 'Z') {
			s++;
		} else if (*s == '+' || *s == '-') {
			int sign = *s == '-' ? -1 : 1;

			if (digits(s + 1, 2, &oh) || s[3] != ':' ||
			    digits(s + 4, 2, &om))
				return -1;
			oh *= sign;
			om *= sign;
			s += 6;
		}
	}
	if (*s)
		return -1;
	t = (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600 + mi * 60 +
	    sec - oh * 3600 - om * 60;
	*out = t;
	return 0;
}

/* a + b, held at INT_MAX: the figures are ints (up to 2e9 each from an
 * import), and a sum past INT_MAX is no longer a count anyone can use,
 * but it must stay large rather than wrap into a small or negative one */
static int add_sat(int a, int b)
{
	long long s = (long long)a + b;

	return s > INT_MAX ? INT_MAX : (int)s;
}

/*
 * A fingerprint of what a diff changes: the files it touches and the
 * lines it adds and removes, in order, but not where they sit (hunk
 * headers, index lines, context), so the same change cherry-picked or
 * backported to another branch has the same one.  FNV-1a, 64 bits.
 * 0 for a diff that changes no line.
 */
static unsigned long long change_print(const char *d, size_t len)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	size_t i = 0;
	int any = 0;

	while (i < len) {
		const char *line = d + i;
		const char *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i, k;

		i += n + (nl ? 1 : 0);
		if (n && line[n - 1] == '\r')
			n--;
		if (!n || (line[0] != '+' && line[0] != '-' &&
			   (n < 11 || strncmp(line, "diff --git ", 11))))
			continue;
		if (line[0] != 'd' && strncmp(line, "+++ ", 4) &&
		    strncmp(line, "--- ", 4))
			any = 1;
		for (k = 0; k < n; k++) {
			h ^= (unsigned char)line[k];
			h *= 0x100000001b3ULL;
		}
		h ^= '\n';
		h *= 0x100000001b3ULL;
	}
	return any ? h : 0;
}

/* Mark each fix whose change repeats an earlier fix's (f->repeats). */
static void mark_repeats(struct item *it)
{
	unsigned long long *print = xcalloc(it->nr_fixes + 1, sizeof(*print));
	size_t i, j;

	for (i = 0; i < it->nr_fixes; i++) {
		struct fix *f = &it->fixes[i];

		f->repeats = 0;
		print[i] = f->diff ? change_print(f->diff, f->diff_len) : 0;
		for (j = 0; print[i] && j < i; j++) {
			if (print[j] == print[i] && !it->fixes[j].repeats) {
				f->repeats = (int)j + 1;
				break;
			}
		}
	}
	free(print);
}

void item_compute_effort(struct item *it)
{
	double a, b;
	size_t i;
	int unknown_add = 0, unknown_del = 0, unknown_files = 0;

	if ((int)it->nr_comments > it->comment_count)
		it->comment_count = (int)it->nr_comments;
	it->days_open = -1;
	if (it->created_at && it->closed_at &&
	    !item_parse_date(it->created_at, &a) &&
	    !item_parse_date(it->closed_at, &b) && b >= a)
		it->days_open = (b - a) / 86400.0;

	it->additions = it->deletions = it->changed_files = -1;
	it->lines_changed = -1;
	it->small_fix = 0;
	it->diff_partial = 0;
	if (!it->nr_fixes)
		return;
	it->additions = it->deletions = it->changed_files = 0;
	mark_repeats(it);
	for (i = 0; i < it->nr_fixes; i++) {
		struct fix *f = &it->fixes[i];

		if ((f->additions < 0 || f->deletions < 0 ||
		     f->changed_files < 0) && f->diff) {
			int ad, de, fi;

			diff_count(f->diff, f->diff_len, &ad, &de, &fi);
			if (f->additions < 0)
				f->additions = ad;
			if (f->deletions < 0)
				f->deletions = de;
			if (f->changed_files < 0)
				f->changed_files = fi;
		}
		if (f->diff_partial)
			it->diff_partial = 1;
		/* the same change again (on another branch) is not more
		 * work: its own figures stay on the fix */
		if (f->repeats)
			continue;
		/* a figure neither given nor countable is unknown, not 0:
		 * a fix of unknown size must not count as a small one */
		if (f->additions < 0)
			unknown_add = 1;
		else
			it->additions = add_sat(it->additions, f->additions);
		if (f->deletions < 0)
			unknown_del = 1;
		else
			it->deletions = add_sat(it->deletions, f->deletions);
		if (f->changed_files < 0)
			unknown_files = 1;
		else
			it->changed_files = add_sat(it->changed_files,
						    f->changed_files);
	}
	if (unknown_add)
		it->additions = -1;
	if (unknown_del)
		it->deletions = -1;
	if (unknown_files)
		it->changed_files = -1;
	if (unknown_add || unknown_del)
		return;
	it->lines_changed = add_sat(it->additions, it->deletions);
	it->small_fix = it->lines_changed <= ITEM_SMALL_FIX;
}
