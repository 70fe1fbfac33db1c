/* SPDX-License-Identifier: MIT */
/*
 * machine: see machine.h.
 */
#include "core/study/machine.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/store/audit.h"
#include "core/study/item.h"
#include "core/study/label.h"
#include "core/base/limits.h"
#include "core/base/priv.h"

/* the start of the command's stderr kept for the reason of a failure */
#define ERROUT_MAX 2048

static cJSON *str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *figure(long long v)
{
	/* -1 stands for "unknown" in struct item */
	return v < 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)v);
}

static cJSON *item_json(const struct item *it)
{
	cJSON *o = cJSON_CreateObject(), *a, *f;
	char *name = item_name(it->repo, it->number);
	size_t i;

	cJSON_AddNumberToObject(o, "id", (double)it->id);
	cJSON_AddStringToObject(o, "name", name);
	free(name);
	cJSON_AddStringToObject(o, "repo", it->repo);
	cJSON_AddNumberToObject(o, "number", (double)it->number);
	cJSON_AddStringToObject(o, "kind", it->is_pull ? "pull" : "issue");
	cJSON_AddItemToObject(o, "url", str_or_null(it->url));
	cJSON_AddItemToObject(o, "title", str_or_null(it->title));
	cJSON_AddItemToObject(o, "body", str_or_null(it->body));
	cJSON_AddItemToObject(o, "state", str_or_null(it->state));
	cJSON_AddItemToObject(o, "created_at", str_or_null(it->created_at));
	cJSON_AddItemToObject(o, "closed_at", str_or_null(it->closed_at));
	a = cJSON_AddArrayToObject(o, "labels");
	for (i = 0; i < it->nr_labels; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(it->labels[i]));
	a = cJSON_AddArrayToObject(o, "comments");
	for (i = 0; i < it->nr_comments; i++) {
		const struct comment *c = &it->comments[i];
		cJSON *co = cJSON_CreateObject();

		cJSON_AddItemToObject(co, "author", str_or_null(c->author));
		cJSON_AddItemToObject(co, "created_at",
				      str_or_null(c->created_at));
		cJSON_AddItemToObject(co, "body", str_or_null(c->body));
		cJSON_AddItemToArray(a, co);
	}
	a = cJSON_AddArrayToObject(o, "fixes");
	for (i = 0; i < it->nr_fixes; i++) {
		const struct fix *x = &it->fixes[i];
		cJSON *fo = cJSON_CreateObject();

		cJSON_AddItemToObject(fo, "number", x->number ?
				      cJSON_CreateNumber((double)x->number) :
				      cJSON_CreateNull());
		cJSON_AddItemToObject(fo, "title", str_or_null(x->title));
		cJSON_AddItemToObject(fo, "body", str_or_null(x->body));
		cJSON_AddItemToObject(fo, "url", str_or_null(x->url));
		cJSON_AddItemToObject(fo, "merged_at",
				      str_or_null(x->merged_at));
		cJSON_AddItemToObject(fo, "additions", figure(x->additions));
		cJSON_AddItemToObject(fo, "deletions", figure(x->deletions));
		cJSON_AddItemToObject(fo, "changed_files",
				      figure(x->changed_files));
		cJSON_AddItemToObject(fo, "diff", str_or_null(x->diff));
		cJSON_AddItemToArray(a, fo);
	}
	f = cJSON_AddObjectToObject(o, "figures");
	cJSON_AddNumberToObject(f, "comments", it->comment_count);
	cJSON_AddItemToObject(f, "days_open", it->days_open < 0 ?
			      cJSON_CreateNull() :
			      cJSON_CreateNumber(it->days_open));
	cJSON_AddItemToObject(f, "additions", figure(it->additions));
	cJSON_AddItemToObject(f, "deletions", figure(it->deletions));
	cJSON_AddItemToObject(f, "changed_files", figure(it->changed_files));
	cJSON_AddItemToObject(f, "lines_changed", figure(it->lines_changed));
	return o;
}

static cJSON *codebook_json(const struct codebook *cb)
{
	cJSON *o = cJSON_CreateObject(), *dims;
	size_t i, j, k;

	cJSON_AddStringToObject(o, "name", cb->name);
	cJSON_AddStringToObject(o, "version", cb->version);
	cJSON_AddItemToObject(o, "title", str_or_null(cb->title));
	cJSON_AddItemToObject(o, "description", str_or_null(cb->description));
	dims = cJSON_AddArrayToObject(o, "dimensions");
	for (i = 0; i < cb->nr_dims; i++) {
		const struct dimension *d = &cb->dims[i];
		cJSON *dj = cJSON_CreateObject(), *codes;

		cJSON_AddStringToObject(dj, "key", d->key);
		cJSON_AddItemToObject(dj, "name", str_or_null(d->name));
		cJSON_AddItemToObject(dj, "question", str_or_null(d->question));
		cJSON_AddStringToObject(dj, "select", d->select_many ? "many" :
					"one");
		cJSON_AddBoolToObject(dj, "required", d->required);
		codes = cJSON_AddArrayToObject(dj, "codes");
		for (j = 0; j < d->nr_codes; j++) {
			const struct code *c = &d->codes[j];
			cJSON *cj = cJSON_CreateObject(), *ex;

			cJSON_AddStringToObject(cj, "key", c->key);
			cJSON_AddItemToObject(cj, "name", str_or_null(c->name));
			cJSON_AddItemToObject(cj, "group",
					      str_or_null(c->group));
			cJSON_AddItemToObject(cj, "definition",
					      str_or_null(c->definition));
			cJSON_AddItemToObject(cj, "include",
					      str_or_null(c->include));
			cJSON_AddItemToObject(cj, "exclude",
					      str_or_null(c->exclude));
			ex = cJSON_AddArrayToObject(cj, "examples");
			for (k = 0; k < c->nr_examples; k++)
				cJSON_AddItemToArray(ex, cJSON_CreateString(
						     c->examples[k]));
			cJSON_AddItemToArray(codes, cj);
		}
		cJSON_AddItemToArray(dims, dj);
	}
	return o;
}

int machine_input(struct store *st, const struct codebook *cb,
		  long long item_id, struct buf *out, struct err *e)
{
	struct item it;
	cJSON *doc, *dims;
	char *text;
	size_t i;

	memset(&it, 0, sizeof(it));
	if (item_load(st, item_id, &it, e) < 0)
		return -1;
	item_compute_effort(&it);
	doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "bugcoder_machine", 1);
	cJSON_AddItemToObject(doc, "item", item_json(&it));
	cJSON_AddItemToObject(doc, "codebook", codebook_json(cb));
	dims = cJSON_AddArrayToObject(doc, "dimensions");
	for (i = 0; i < cb->nr_dims; i++)
		cJSON_AddItemToArray(dims, cJSON_CreateString(cb->dims[i].key));
	text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	item_release(&it);
	if (!text)
		return err_set(e, ERR_IO, "out of memory writing the input "
			       "document");
	buf_addstr(out, text);
	buf_addch(out, '\n');
	cJSON_free(text);
	return 0;
}

void machine_answer_release(struct machine_answer *ans)
{
	size_t i, j;

	for (i = 0; i < ans->nr_dims; i++) {
		for (j = 0; j < ans->dims[i].nr; j++)
			free(ans->dims[i].codes[j]);
		free(ans->dims[i].codes);
		free(ans->dims[i].dim);
	}
	free(ans->dims);
	free(ans->rationale);
	free(ans->model);
	memset(ans, 0, sizeof(*ans));
}

static int check_code(const struct dimension *d, const cJSON *v,
		      struct err *e)
{
	if (!cJSON_IsString(v))
		return err_set(e, ERR_INPUT, "labels.%s: a code must be a "
			       "string", d->key);
	if (!dimension_code(d, v->valuestring))
		return err_set(e, ERR_INPUT, "labels.%s: unknown code `%.60s`",
			       d->key, v->valuestring);
	return 0;
}

/* Check and copy the answer's codes `v` for one dimension (v->string)
 * into ans->dims.  0, or -1 with `e` naming the dimension. */
static int take_dim(const struct codebook *cb, const cJSON *v,
		    struct machine_answer *ans, struct err *e)
{
	const struct dimension *d = codebook_dim(cb, v->string);
	const cJSON *c;
	size_t i, n, k = 0;

	if (!d)
		return err_set(e, ERR_INPUT, "labels: unknown dimension "
			       "`%.60s`", v->string);
	for (i = 0; i < ans->nr_dims; i++)
		if (!strcmp(ans->dims[i].dim, d->key))
			return err_set(e, ERR_INPUT, "labels.%s given twice",
				       d->key);
	if (cJSON_IsArray(v)) {
		n = (size_t)cJSON_GetArraySize(v);
		if (!d->select_many && n != 1)
			return err_set(e, ERR_INPUT, "labels.%s takes one "
				       "code", d->key);
		if (n > CODEBOOK_MANY_MAX)
			return err_set(e, ERR_INPUT, "labels.%s: too many "
				       "codes", d->key);
		cJSON_ArrayForEach(c, v)
			if (check_code(d, c, e) < 0)
				return -1;
	} else if (check_code(d, v, e) < 0) {
		return -1;
	} else {
		n = 1;
	}
	ans->dims[ans->nr_dims].dim = xstrdup(d->key);
	ans->dims[ans->nr_dims].codes = xcalloc(n ? n : 1, sizeof(char *));
	if (cJSON_IsArray(v)) {
		cJSON_ArrayForEach(c, v)
			ans->dims[ans->nr_dims].codes[k++] =
				xstrdup(c->valuestring);
	} else {
		ans->dims[ans->nr_dims].codes[k++] =
			xstrdup(v->valuestring);
	}
	ans->dims[ans->nr_dims++].nr = k;
	return 0;
}

/* Every required dimension of `cb` has a code in `ans`.  0, or -1 with
 * `e` naming the first that has none. */
static int check_required(const struct codebook *cb,
			  const struct machine_answer *ans, struct err *e)
{
	size_t i;

	for (i = 0; i < cb->nr_dims; i++) {
		size_t j;
		int found = 0;

		if (!cb->dims[i].required)
			continue;
		for (j = 0; j < ans->nr_dims; j++)
			if (!strcmp(ans->dims[j].dim, cb->dims[i].key) &&
			    ans->dims[j].nr)
				found = 1;
		if (!found)
			return err_set(e, ERR_INPUT, "labels: the required "
				       "dimension %s is not coded",
				       cb->dims[i].key);
	}
	return 0;
}

int machine_parse(const struct codebook *cb, const char *text, size_t len,
		  struct machine_answer *ans, struct err *e)
{
	cJSON *doc, *labels, *v;
	const char *end = NULL;
	size_t n;
	int ret = -1;

	memset(ans, 0, sizeof(*ans));
	if (memchr(text, 0, len))
		return err_set(e, ERR_INPUT, "the answer holds a NUL byte");
	doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!doc)
		return err_set(e, ERR_INPUT, "the answer is not JSON");
	/* one document and nothing after it: a second document or trailing
	 * text says the command is not answering as asked */
	for (; end && end < text + len; end++)
		if (*end != ' ' && *end != '\t' && *end != '\n' &&
		    *end != '\r')
			break;
	if (end && end < text + len) {
		err_set(e, ERR_INPUT, "the answer has text after its JSON "
			"document (at byte %zu)", (size_t)(end - text) + 1);
		goto out;
	}
	if (!cJSON_IsObject(doc)) {
		err_set(e, ERR_INPUT, "the answer is not a JSON object");
		goto out;
	}
	labels = cJSON_GetObjectItemCaseSensitive(doc, "labels");
	if (!cJSON_IsObject(labels)) {
		err_set(e, ERR_INPUT, "the answer has no `labels` object");
		goto out;
	}
	n = (size_t)cJSON_GetArraySize(labels);
	ans->dims = xcalloc(n ? n : 1, sizeof(*ans->dims));
	cJSON_ArrayForEach(v, labels)
		if (take_dim(cb, v, ans, e) < 0)
			goto out;
	if (check_required(cb, ans, e) < 0)
		goto out;
	v = cJSON_GetObjectItemCaseSensitive(doc, "rationale");
	if (cJSON_IsString(v) &&
	    limit_text("the answer's rationale", v->valuestring, e) < 0)
		goto out;
	if (cJSON_IsString(v))
		ans->rationale = xstrdup(v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(doc, "model");
	if (cJSON_IsString(v) && *v->valuestring)
		ans->model = xstrdup(v->valuestring);
	ret = 0;
out:
	cJSON_Delete(doc);
	if (ret < 0)
		machine_answer_release(ans);
	return ret;
}

void machine_result_release(struct machine_result *r)
{
	buf_release(&r->out);
	buf_release(&r->errout);
	memset(r, 0, sizeof(*r));
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int rm_entry(const char *path, const struct stat *sb, int flag,
		    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* The child: never returns. */
static void run_child(const char *cmd, const char *dir, int in, int out,
		      int err)
{
	setpgid(0, 0);
	/* the command is the user's own program: no group privilege, ever,
	 * and none of our descriptors or hooks */
	if (priv_drop_for_good() < 0)
		_exit(126);
	priv_clean_env();
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	priv_close_fds(3);
	if (chdir(dir) < 0)
		_exit(126);
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

static void kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

/* A running command: its pipes (our ends and, until the fork is done,
 * its), its process and how the run stands. */
struct child {
	int pin[2], pout[2], perr[2];
	pid_t pid;
	int status;
	int reaped;		/* waitpid() has taken it */
	size_t sent;		/* bytes of the input written */
	long long start, deadline, drain;
	const char *why;	/* NULL, or why the run stopped short:
				   "stopped", "timeout", "huge", "error" */
};

/* A fresh temporary directory for the command to run in, under $TMPDIR
 * when that is absolute, into `dirb`.  0, or -1 with `e` filled. */
static int make_workdir(struct buf *dirb, struct err *e)
{
	char dir[] = "/tmp/bugcoder-machine-XXXXXX";
	const char *tmp = getenv("TMPDIR");

	if (tmp && *tmp == '/') {
		buf_addf(dirb, "%s/bugcoder-machine-XXXXXX", tmp);
	} else {
		buf_addstr(dirb, dir);
	}
	if (!mkdtemp(dirb->ptr))
		return err_set(e, ERR_IO, "cannot make a temporary directory: "
			       "%s", strerror(errno));
	return 0;
}

/* Start `cmd` in `dir` with pipes on its stdin, stdout and stderr, in a
 * process group of its own; SIGPIPE is ignored from here on, its old
 * action in *old_pipe (put back on failure).  0, or -1 with `e` filled:
 * the caller closes what pipes c holds. */
static int start_child(struct child *c, const char *cmd, const char *dir,
		       size_t len, struct sigaction *old_pipe, struct err *e)
{
	struct sigaction ign;

	if (pipe(c->pin) < 0 || pipe(c->pout) < 0 || pipe(c->perr) < 0)
		return err_set(e, ERR_IO, "cannot make a pipe: %s",
			       strerror(errno));
	memset(&ign, 0, sizeof(ign));
	sigemptyset(&ign.sa_mask);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, old_pipe);
	fflush(NULL);
	c->pid = fork();
	if (c->pid == 0) {
		close(c->pin[1]);
		close(c->pout[0]);
		close(c->perr[0]);
		run_child(cmd, dir, c->pin[0], c->pout[1], c->perr[1]);
	}
	if (c->pid < 0) {
		err_set(e, ERR_IO, "cannot start the command: %s",
			strerror(errno));
		sigaction(SIGPIPE, old_pipe, NULL);
		return -1;
	}
	setpgid(c->pid, c->pid);	/* as the child does: no race either
					   way */
	close(c->pin[0]);
	close(c->pout[1]);
	close(c->perr[1]);
	c->pin[0] = c->pout[1] = c->perr[1] = -1;
	fcntl(c->pin[1], F_SETFL, O_NONBLOCK);
	if (!len) {
		close(c->pin[1]);
		c->pin[1] = -1;
	}
	return 0;
}

/* Write what the command's stdin takes of in[c->sent..len); close it
 * when all is written or the command stopped reading. */
static void feed_input(struct child *c, const char *in, size_t len)
{
	ssize_t got = write(c->pin[1], in + c->sent, len - c->sent);

	if (got > 0)
		c->sent += (size_t)got;
	if ((got < 0 && errno != EAGAIN && errno != EINTR) ||
	    c->sent == len) {
		/* done, or the command stopped reading: its answer
		 * decides */
		close(c->pin[1]);
		c->pin[1] = -1;
	}
}

/* Read what output `fd` (stdout or stderr) holds into r->out (up to
 * MACHINE_ANSWER_MAX, else c->why is "huge") or r->errout (its first
 * ERROUT_MAX bytes); close it at its end. */
static void take_output(struct child *c, int fd, struct machine_result *r)
{
	char chunk[65536];
	ssize_t got = read(fd, chunk, sizeof(chunk));

	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (got <= 0) {
		close(fd);
		if (fd == c->pout[0])
			c->pout[0] = -1;
		else
			c->perr[0] = -1;
		return;
	}
	if (fd == c->pout[0]) {
		if (r->out.len + (size_t)got > MACHINE_ANSWER_MAX) {
			c->why = "huge";
			return;
		}
		buf_add(&r->out, chunk, (size_t)got);
	} else if (r->errout.len < ERROUT_MAX) {
		size_t room = ERROUT_MAX - r->errout.len;

		buf_add(&r->errout, chunk, (size_t)got < room ? (size_t)got :
			room);
	}
}

/* Has the command exited?  Then what it left in the background has
 * MACHINE_DRAIN_MS to finish its output, and its stdin is closed. */
static void check_exit(struct child *c)
{
	if (c->reaped || waitpid(c->pid, &c->status, WNOHANG) != c->pid)
		return;
	/* the command is done; a background child of it may hold its
	 * output open: read a little longer, then take what came */
	c->reaped = 1;
	c->drain = now_ms() + MACHINE_DRAIN_MS;
	if (c->pin[1] >= 0) {
		close(c->pin[1]);
		c->pin[1] = -1;
	}
}

/* Feed the input and read the outputs until both are closed after the
 * command exited, the drain or the deadline passes, *stop is set, or
 * the answer grows too large (c->why says which stopped it short). */
static void pump(struct child *c, const char *in, size_t len,
		 volatile sig_atomic_t *stop, struct machine_result *r,
		 struct err *e)
{
	for (;;) {
		struct pollfd fds[3];
		nfds_t n = 0;
		int left, rc;
		size_t i;

		if (stop && *stop) {
			c->why = "stopped";
			break;
		}
		check_exit(c);
		if (c->reaped && c->pout[0] < 0 && c->perr[0] < 0)
			break;
		left = (int)((c->reaped && c->drain < c->deadline ? c->drain :
			      c->deadline) - now_ms());
		if (left <= 0) {
			if (!c->reaped)
				c->why = "timeout";
			break;
		}
		/* wake up now and then to see whether the command exited
		 * while something else holds its output */
		if (left > 50)
			left = 50;
		if (c->pout[0] >= 0) {
			fds[n].fd = c->pout[0];
			fds[n++].events = POLLIN;
		}
		if (c->perr[0] >= 0) {
			fds[n].fd = c->perr[0];
			fds[n++].events = POLLIN;
		}
		if (c->pin[1] >= 0) {
			fds[n].fd = c->pin[1];
			fds[n++].events = POLLOUT;
		}
		if (!n) {
			/* both outputs closed, the child not gone yet */
			poll(NULL, 0, left < 10 ? left : 10);
			continue;
		}
		rc = poll(fds, n, left);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			err_set(e, ERR_IO, "poll: %s", strerror(errno));
			c->why = "error";
			break;
		}
		for (i = 0; i < n && !c->why; i++) {
			if (!fds[i].revents)
				continue;
			if (fds[i].fd == c->pin[1])
				feed_input(c, in, len);
			else
				take_output(c, fds[i].fd, r);
		}
		if (c->why)
			break;
	}
}

/* Wait for the command (killing its group first when the run stopped
 * short), then kill whatever it left running in its group. */
static void reap(struct child *c)
{
	if (!c->reaped) {
		if (c->why)
			kill_group(c->pid);
		while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
			;
	}
	/* whatever the command left running in its group goes too */
	kill(-c->pid, SIGKILL);
}

/* How the run ended, as machine_run() returns it: 0 for an answer, or
 * -1 with `e` filled with the reason. */
static int judge(const struct child *c, int timeout_ms,
		 const struct machine_result *r, struct err *e)
{
	const char *why = c->why;
	int status = c->status;

	if (why && !strcmp(why, "error"))
		return -1;
	if (why && !strcmp(why, "stopped"))
		return err_set(e, ERR_INTERRUPTED, "stopped");
	if (why && !strcmp(why, "timeout"))
		return err_set(e, ERR_INPUT, "no answer within %d s (the "
			       "command was killed)",
			       (timeout_ms + 999) / 1000);
	if (why)
		return err_set(e, ERR_INPUT, "the answer is larger than %d "
			       "bytes (the command was killed)",
			       MACHINE_ANSWER_MAX);
	if (WIFSIGNALED(status))
		return err_set(e, ERR_INPUT, "the command was killed by "
			       "signal %d", WTERMSIG(status));
	if (WIFEXITED(status) && WEXITSTATUS(status)) {
		char first[200];
		size_t k = 0, j;

		/* the first line of its stderr says why, as far as it can */
		for (j = 0; j < r->errout.len && k + 1 < sizeof(first); j++) {
			if (r->errout.ptr[j] == '\n')
				break;
			first[k++] = r->errout.ptr[j];
		}
		first[k] = '\0';
		return err_set(e, ERR_INPUT, "the command exited with status "
			       "%d%s%s", WEXITSTATUS(status), k ? ": " : "",
			       first);
	}
	return 0;
}

static void close_pipes(struct child *c)
{
	int *fds[] = { c->pin, c->pout, c->perr };
	size_t i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 2; j++)
			if (fds[i][j] >= 0)
				close(fds[i][j]);
}

int machine_run(const char *cmd, const char *in, size_t len, int timeout_ms,
		volatile sig_atomic_t *stop, struct machine_result *r,
		struct err *e)
{
	struct child c = {
		.pin = { -1, -1 }, .pout = { -1, -1 }, .perr = { -1, -1 },
		.pid = -1,
	};
	struct buf dirb = BUF_INIT;
	struct sigaction old_pipe;
	int ret = -1;

	c.start = now_ms();
	c.deadline = c.start + timeout_ms;
	memset(r, 0, sizeof(*r));
	if (make_workdir(&dirb, e) < 0) {
		buf_release(&dirb);
		return -1;
	}
	if (start_child(&c, cmd, dirb.ptr, len, &old_pipe, e) < 0)
		goto out;
	pump(&c, in, len, stop, r, e);
	reap(&c);
	sigaction(SIGPIPE, &old_pipe, NULL);
	r->ms = now_ms() - c.start;
	ret = judge(&c, timeout_ms, r, e);
out:
	close_pipes(&c);
	nftw(dirb.ptr, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	buf_release(&dirb);
	return ret;
}

int machine_store(struct store *st, const struct actor *a,
		  const struct actor *m, const struct codebook *cb,
		  long long item_id, const struct machine_answer *ans,
		  const char *raw, size_t raw_len,
		  const struct machine_prov *p, struct err *e)
{
	sqlite3_stmt *s = NULL;
	char now[32];
	size_t i;
	int ret = -1;

	if (actor_require(a, ROLES(ROLE_OWNER), "machine-code", e) < 0 ||
	    limit_text("--note", p->note, e) < 0 ||
	    limit_text("the answer's rationale", ans->rationale, e) < 0)
		return -1;
	if (store_begin(st, e) < 0)
		return -1;
	for (i = 0; i < ans->nr_dims; i++)
		if (label_set(st, m, cb, item_id, ans->dims[i].dim,
			      (const char *const *)ans->dims[i].codes,
			      ans->dims[i].nr, 0, e) < 0)
			goto out;
	if (label_submit(st, m, cb, item_id, e) < 0)
		goto out;
	store_now(now);
	s = store_prepare(st, "INSERT INTO machine_answers (member_id, "
			  "item_id, command, model, note, codebook_version, "
			  "input_sha256, answer_sha256, answer, rationale, "
			  "duration_ms, answered_at) VALUES (?, ?, ?, ?, ?, ?, "
			  "?, ?, ?, ?, ?, ?)", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, m->member_id);
	sqlite3_bind_int64(s, 2, item_id);
	sqlite3_bind_text(s, 3, p->command, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, p->model, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, p->note, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, cb->version, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 7, p->input_sha, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 8, p->answer_sha, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 9, raw, (int)raw_len, SQLITE_STATIC);
	sqlite3_bind_text(s, 10, ans->rationale, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 11, p->ms);
	sqlite3_bind_text(s, 12, now, -1, SQLITE_STATIC);
	if (store_step_done(st, s, "storing the machine's answer", e) < 0)
		goto out;
	{
		struct buf n = BUF_INIT, d = BUF_INIT;
		int rc;

		buf_addf(&n, "%s answer=%s input=%s model=%s ms=%lld",
			 m->name, p->answer_sha, p->input_sha,
			 p->model ? p->model : "-", p->ms);
		audit_detail_int(&d, "id", sqlite3_last_insert_rowid(st->db));
		audit_detail_str(&d, "command", p->command);
		audit_detail_str(&d, "model", p->model);
		audit_detail_str(&d, "note", p->note);
		audit_detail_str(&d, "version", cb->version);
		audit_detail_str(&d, "input_sha256", p->input_sha);
		audit_detail_str(&d, "answer_sha256", p->answer_sha);
		audit_detail_str(&d, "rationale", ans->rationale);
		audit_detail_int(&d, "ms", p->ms);
		rc = audit_write_detail(st, a->os_user, m->name,
					"machine.answer", item_id, NULL, NULL,
					n.ptr, audit_detail_end(&d), e);
		buf_release(&n);
		buf_release(&d);
		if (rc < 0)
			goto out;
	}
	ret = store_commit(st, e);
out:
	sqlite3_finalize(s);
	if (ret < 0)
		store_rollback(st);
	return ret;
}

int machine_todo(struct store *st, long long member_id, long long round_id,
		 const long long *ids, size_t nr, long long **out,
		 size_t *nr_out, struct err *e)
{
	sqlite3_stmt *s;
	size_t alloc = 0, i;
	int rc;

	*out = NULL;
	*nr_out = 0;
	if (nr) {
		s = store_prepare(st, "SELECT NOT EXISTS (SELECT 1 FROM "
				  "submissions WHERE item_id = ? AND "
				  "member_id = ?)", e);
		if (!s)
			return -1;
		for (i = 0; i < nr; i++) {
			sqlite3_reset(s);
			sqlite3_bind_int64(s, 1, ids[i]);
			sqlite3_bind_int64(s, 2, member_id);
			rc = store_step(st, s, "reading submissions", e);
			if (rc < 0) {
				sqlite3_finalize(s);
				free(*out);
				*out = NULL;
				return -1;
			}
			if (rc > 0 && sqlite3_column_int(s, 0)) {
				ALLOC_GROW(*out, *nr_out + 1, alloc);
				(*out)[(*nr_out)++] = ids[i];
			}
		}
		sqlite3_finalize(s);
		return 0;
	}
	/* a round named: its items, the machine declared or not; else the
	 * open rounds that declare it */
	s = store_prepare(st, round_id ?
		"SELECT a.item_id FROM assignments a JOIN rounds r ON r.id = "
		"a.round_id WHERE a.round_id = ?2 AND r.closed_at IS NULL AND "
		"NOT EXISTS (SELECT 1 FROM submissions su WHERE su.item_id = "
		"a.item_id AND su.member_id = ?1) ORDER BY a.position" :
		"SELECT a.item_id FROM assignments a JOIN round_annotators ra "
		"ON ra.round_id = a.round_id AND ra.member_id = ?1 JOIN rounds r "
		"ON r.id = a.round_id WHERE r.closed_at IS NULL AND NOT EXISTS "
		"(SELECT 1 FROM submissions su WHERE su.item_id = a.item_id AND "
		"su.member_id = ?1) ORDER BY a.round_id, a.position", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, member_id);
	if (round_id)
		sqlite3_bind_int64(s, 2, round_id);
	while ((rc = store_step(st, s, "reading the machine's items", e)) > 0) {
		ALLOC_GROW(*out, *nr_out + 1, alloc);
		(*out)[(*nr_out)++] = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	if (rc < 0) {
		free(*out);
		*out = NULL;
		*nr_out = 0;
		return -1;
	}
	return 0;
}
