/* SPDX-License-Identifier: MIT */
/*
 * gen: the synthetic study that `make bench` measures.
 *
 *   tests/bench/gen --dir DIR [--items N] [--seed S] [--import-items M]
 *                   [--huge-lines L] [--codebook FILE]
 *
 * writes, deterministically from the seed (only the study's secret salt
 * differs between two runs):
 *
 *   DIR/study.db      N items across several repositories, saved through
 *                     core/study/item (item_save, in big transactions): Markdown
 *                     bodies of 1-4 KB with a traceback, 0-8 comments, fix
 *                     diffs of 2-300 lines, and one item whose fix diff
 *                     has L lines.  The codebook; members alice and bob
 *                     (annotators) and carol (adjudicator); alice's and
 *                     bob's labels and submissions on every item, differing
 *                     on about 15% of item-dimensions; carol's resolution
 *                     of every difference; the audit log of it all, as
 *                     bugcoder writes it (`audit verify` holds).
 *   DIR/import.jsonl  M other items (not in the study's repositories'
 *                     numbering: a repository of their own per source
 *                     repository) in the JSON Lines format of `import`;
 *   DIR/huge.diff     the L-line diff by itself, for less;
 *   DIR/meta.json     the parameters and what was made, written last so
 *                     that an interrupted run is never taken for a whole
 *                     one.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/store/audit.h"
#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/item.h"
#include "core/study/member.h"
#include "core/store/store.h"
#include "core/study/study.h"

#define GEN_FORMAT 2		/* bump when the data changes shape */
#define BATCH 2000		/* items per transaction */
#define DISAGREE_PCT 15		/* per item and dimension */
#define BASE_TIME 1672531200L	/* 2023-01-01T00:00:00Z */
#define MAX_CODES 32

/* ---- a small deterministic generator (splitmix64) ---------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [lo, hi] */
static int rint_in(int lo, int hi)
{
	return lo + (int)(rnd() % (uint64_t)(hi - lo + 1));
}

static int chance(int pct)
{
	return (int)(rnd() % 100) < pct;
}

static double runit(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* log-uniform in [lo, hi]: many small values and a long tail */
static int rlog_in(int lo, int hi)
{
	double v = exp(log((double)lo) +
		       runit() * (log((double)hi + 1) - log((double)lo)));

	return v > hi ? hi : (int)v;
}

#define PICK(arr) (arr[rnd() % (sizeof(arr) / sizeof(arr[0]))])

/* ---- vocabulary ---------------------------------------------------------- */

static const struct repo {
	const char *name, *pkg;
	int weight;
} repos[] = {
	{ "microsoft/DeepSpeed", "deepspeed", 30 },
	{ "NVIDIA/Megatron-LM", "megatron", 18 },
	{ "hpcaitech/ColossalAI", "colossalai", 12 },
	{ "vllm-project/vllm", "vllm", 14 },
	{ "huggingface/accelerate", "accelerate", 9 },
	{ "NVIDIA/TensorRT-LLM", "tensorrt_llm", 7 },
	{ "sgl-project/sglang", "sglang", 6 },
	{ "pytorch/torchtitan", "torchtitan", 4 },
};
#define NR_REPOS (sizeof(repos) / sizeof(repos[0]))

static const char *const words[] = {
	"the", "training", "loss", "hangs", "after", "step", "when", "using",
	"ZeRO", "stage", "with", "gradient", "checkpointing", "enabled", "on",
	"multiple", "nodes", "and", "process", "group", "is", "initialized",
	"before", "model", "parallel", "ranks", "are", "set", "optimizer",
	"state", "offload", "to", "CPU", "memory", "fails", "during",
	"backward", "pass", "tensor", "shape", "mismatch", "between",
	"pipeline", "stages", "it", "works", "fine", "single", "GPU", "but",
	"not", "across", "eight", "GPUs", "we", "tried", "reducing", "batch",
	"size", "bf16", "fp16", "mixed", "precision", "scaler", "overflow",
	"checkpoint", "loading", "resume", "from", "saved", "weights", "config",
	"this", "seems", "related", "NCCL", "timeout", "all-reduce",
	"collective", "communication", "kernel", "launch", "CUDA", "stream",
	"synchronization", "attention", "sequence", "length", "tokens",
	"inference", "engine", "KV", "cache", "allocation", "scheduler",
	"request", "throughput", "latency", "regression", "version", "upgrade",
	"dependency", "install", "build", "extension", "compile", "error", "a",
	"of", "in", "for", "only", "rank", "0", "first", "iteration", "again",
	"expected", "output", "differs", "tensor-parallel", "size", "2", "4",
	"8", "sharded", "parameters", "all-gather", "reduce-scatter", "bucket",
	"micro-batch", "accumulation", "learning", "rate", "warmup", "NaN",
	"produces", "wrong", "results", "crashes", "silently", "Megatron",
	"LoRA", "adapter", "quantized", "FP8", "flash-attention", "rotary",
	"embedding", "vocab", "padding", "tokenizer", "prefill", "decode",
};

static const char *const idents[] = {
	"hidden_states", "attention_mask", "grad_norm", "world_size",
	"local_rank", "micro_batch", "param_group", "bucket_size",
	"offload_device", "seq_len", "num_heads", "kv_cache", "block_table",
	"dp_group", "tp_size", "pp_rank", "loss_scale", "fp32_params",
	"ds_config", "tokenizer", "position_ids", "logits", "grad_acc_steps",
	"partition_count", "overlap_comm", "stream", "handle", "max_tokens",
};

static const char *const funcs[] = {
	"all_reduce", "broadcast", "reshape", "view", "contiguous", "to",
	"cuda", "split", "cat", "zeros_like", "empty", "synchronize", "barrier",
	"step", "backward", "allocate", "flatten", "partition", "gather",
	"scatter", "narrow", "chunk", "record_stream", "wait",
};

static const char *const modules[] = {
	"runtime/engine", "runtime/zero/stage3", "core/parallel_state",
	"distributed/utils", "model/attention", "inference/scheduler",
	"utils/checkpoint", "ops/adam/fused_adam", "comm/comm",
	"worker/model_runner", "core/tensor_parallel/layers",
	"pipeline/schedule", "memory/allocator", "config/arguments",
};

static const char *const errors[] = {
	"RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/"
	"ProcessGroupNCCL.cpp:1275, unhandled system error, NCCL version 2.18.1",
	"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate "
	"2.00 GiB (GPU 3; 79.15 GiB total capacity; 74.02 GiB already "
	"allocated)",
	"AssertionError: the number of parameters does not match across "
	"data parallel ranks",
	"ValueError: expected sequence length 4096 to be divisible by the "
	"tensor parallel size",
	"TypeError: forward() got an unexpected keyword argument "
	"'position_ids'",
	"RuntimeError: The size of tensor a (4096) must match the size of "
	"tensor b (2048) at non-singleton dimension 1",
	"KeyError: 'optimizer_state_dict'",
	"RuntimeError: Expected all tensors to be on the same device, but "
	"found at least two devices, cuda:0 and cpu!",
};

static const char *const gh_labels[] = {
	"training", "inference", "zero", "pipeline", "tensor-parallel",
	"checkpointing", "performance", "installation", "needs-triage",
};

/* ---- text --------------------------------------------------------------- */

static void add_words(struct buf *b, int min_len, int max_len)
{
	size_t start = b->len, target = (size_t)rint_in(min_len, max_len);
	int cap = 1;

	while (b->len - start < target) {
		const char *w = PICK(words);

		if (b->len > start)
			buf_addch(b, ' ');
		if (cap && w[0] >= 'a' && w[0] <= 'z') {
			buf_addch(b, w[0] - 'a' + 'A');
			buf_addstr(b, w + 1);
		} else {
			buf_addstr(b, w);
		}
		cap = 0;
		if (chance(9)) {
			buf_addch(b, chance(80) ? '.' : ',');
			cap = b->ptr[b->len - 1] == '.';
		}
	}
	if (b->ptr[b->len - 1] != '.')
		buf_addch(b, '.');
}

/* One line of Python-looking code, without a newline. */
static void add_code(struct buf *b, int indent)
{
	const char *x = PICK(idents), *y = PICK(idents), *f = PICK(funcs);

	switch (rnd() % 10) {
	case 0:
		buf_addf(b, "%*sif %s is not None and %s > %d:", indent, "",
			 x, y, rint_in(0, 4096));
		break;
	case 1:
		buf_addf(b, "%*s%s = torch.%s(%s, dim=%d)", indent, "", x, f,
			 y, rint_in(-1, 3));
		break;
	case 2:
		buf_addf(b, "%*sreturn self.%s", indent, "", x);
		break;
	case 3:
		buf_addf(b, "%*sself.%s = %s.%s(%s)", indent, "", x, y, f,
			 PICK(idents));
		break;
	case 4:
		buf_addf(b, "%*s# %s %s %s %s %s", indent, "", PICK(words),
			 PICK(words), PICK(words), PICK(words), PICK(words));
		break;
	case 5:
		buf_addf(b, "%*sfor %s in range(self.%s):", indent, "", x, y);
		break;
	case 6:
		buf_addf(b, "%*sdist.%s(%s, group=self.%s)", indent, "", f, x,
			 y);
		break;
	case 7:
		buf_addf(b, "%*sassert %s.shape[%d] == %s, f\"bad {%s}\"",
			 indent, "", x, rint_in(0, 3), y, x);
		break;
	case 8:
		buf_addf(b, "%*sdef %s(self, %s, %s=None):", indent, "", f, x,
			 y);
		break;
	default:
		buf_addf(b, "%*slogger.info(\"%s %s %%s\", %s)", indent, "",
			 PICK(words), PICK(words), x);
		break;
	}
}

static void add_traceback(struct buf *b, const struct repo *r)
{
	int frames = rint_in(3, 10), i;

	buf_addstr(b, "Traceback (most recent call last):\n");
	buf_addf(b, "  File \"/workspace/train_%s.py\", line %d, in <module>\n"
		 "    main()\n", PICK(idents), rint_in(20, 400));
	for (i = 0; i < frames; i++) {
		buf_addf(b, "  File \"/usr/local/lib/python3.10/site-packages/"
			 "%s/%s.py\", line %d, in %s\n", r->pkg, PICK(modules),
			 rint_in(10, 3000), PICK(funcs));
		add_code(b, 4);
		buf_addch(b, '\n');
	}
	buf_addstr(b, PICK(errors));
	buf_addch(b, '\n');
}

static void make_body(struct buf *b, const struct repo *r)
{
	size_t target = (size_t)rint_in(1024, 4096);
	int i, n, extra = 0;

	buf_addstr(b, "### Describe the bug\n\n");
	add_words(b, 120, 450);
	buf_addf(b, "\n\n### To Reproduce\n\n```python\nimport torch\n"
		 "import %s\n\n", r->pkg);
	for (n = rint_in(3, 8), i = 0; i < n; i++) {
		add_code(b, 4 * rint_in(0, 2));
		buf_addch(b, '\n');
	}
	buf_addstr(b, "```\n\n### Traceback\n\n```\n");
	add_traceback(b, r);
	buf_addstr(b, "```\n\n### Expected behavior\n\n");
	add_words(b, 50, 200);
	buf_addf(b, "\n\n### Environment\n\n- %s: 0.%d.%d\n- torch: 2.%d.%d\n"
		 "- CUDA: 12.%d\n- GPUs: %d x %s\n", r->pkg, rint_in(1, 16),
		 rint_in(0, 9), rint_in(0, 5), rint_in(0, 2), rint_in(0, 4),
		 1 << rint_in(0, 4), chance(50) ? "A100 80GB" : "H100 80GB");
	while (b->len < target) {
		if (!extra++)
			buf_addstr(b, "\n### Additional context\n");
		buf_addch(b, '\n');
		if (chance(20))
			buf_addstr(b, "- ");
		add_words(b, 80, 400);
		buf_addch(b, '\n');
	}
}

static void make_comment(struct buf *b)
{
	int paras = rint_in(1, 3), i;

	for (i = 0; i < paras; i++) {
		if (i)
			buf_addstr(b, "\n\n");
		add_words(b, 30, 300);
	}
	if (chance(25)) {
		int n = rint_in(2, 6);

		buf_addstr(b, "\n\n```python\n");
		for (i = 0; i < n; i++) {
			add_code(b, 4 * rint_in(0, 2));
			buf_addch(b, '\n');
		}
		buf_addstr(b, "```");
	}
}

static void iso(char out[32], long t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- diffs -------------------------------------------------------------- */

struct diff_figures {
	int additions, deletions, files, lines;
};

static void add_path(struct buf *b, const struct repo *r)
{
	buf_addf(b, "%s/%s.py", r->pkg, PICK(modules));
}

/* A hunk of `ctx_before` + dels + adds + `ctx_after` lines. */
static void add_hunk(struct buf *b, int *line, int ctx_before, int dels,
		     int adds, int ctx_after, struct diff_figures *fig)
{
	int i, ctx = ctx_before + ctx_after;

	buf_addf(b, "@@ -%d,%d +%d,%d @@ def %s(self):\n", *line,
		 ctx + dels, *line, ctx + adds, PICK(funcs));
	for (i = 0; i < ctx_before; i++) {
		buf_addch(b, ' ');
		add_code(b, 4 * rint_in(1, 3));
		buf_addch(b, '\n');
	}
	for (i = 0; i < dels; i++) {
		buf_addch(b, '-');
		add_code(b, 4 * rint_in(1, 3));
		buf_addch(b, '\n');
	}
	for (i = 0; i < adds; i++) {
		buf_addch(b, '+');
		add_code(b, 4 * rint_in(1, 3));
		buf_addch(b, '\n');
	}
	for (i = 0; i < ctx_after; i++) {
		buf_addch(b, ' ');
		add_code(b, 4 * rint_in(1, 3));
		buf_addch(b, '\n');
	}
	*line += ctx + dels + rint_in(20, 300);
	fig->additions += adds;
	fig->deletions += dels;
	fig->lines += 1 + ctx + dels + adds;
}

static void add_file_header(struct buf *b, const struct repo *r,
			    struct diff_figures *fig)
{
	struct buf p = BUF_INIT;

	add_path(&p, r);
	buf_addf(b, "diff --git a/%s b/%s\nindex %07x..%07x 100644\n"
		 "--- a/%s\n+++ b/%s\n", p.ptr, p.ptr,
		 (unsigned)(rnd() & 0xfffffff), (unsigned)(rnd() & 0xfffffff),
		 p.ptr, p.ptr);
	buf_release(&p);
	fig->files++;
	fig->lines += 4;
}

/* An ordinary fix: at most 10 changed lines about half the time, up to
 * 200 otherwise, in 1-4 files; 2-300 lines of diff in all. */
static void make_diff(struct buf *b, const struct repo *r,
		      struct diff_figures *fig)
{
	int changed = chance(48) ? rint_in(1, 10) : rlog_in(11, 200);
	int nfiles = changed <= 10 ? 1 : rint_in(1, changed < 40 ? 2 : 4);
	int f;

	memset(fig, 0, sizeof(*fig));
	for (f = 0; f < nfiles; f++) {
		int share = f == nfiles - 1 ? changed - changed / nfiles * f :
			    changed / nfiles;
		int nh = share <= 6 ? 1 : rint_in(1, 3), h, line;

		add_file_header(b, r, fig);
		line = rint_in(10, 2000);
		for (h = 0; h < nh; h++) {
			int ch = h == nh - 1 ? share - share / nh * h :
				 share / nh;
			int dels = ch > 1 ? rint_in(0, ch - 1) : 0;

			if (ch < 1)
				ch = 1;
			add_hunk(b, &line, rint_in(0, 3), dels, ch - dels,
				 rint_in(0, 3), fig);
		}
	}
}

/* The huge fix: `total` lines in 20 files, new generated files and
 * heavily edited ones by turns. */
static void make_huge_diff(struct buf *b, int total, struct diff_figures *fig)
{
	const int nfiles = 20;
	int f;

	memset(fig, 0, sizeof(*fig));
	for (f = 0; f < nfiles; f++) {
		int budget = f == nfiles - 1 ? total - fig->lines :
			     total / nfiles;
		int line = 1, i;

		if (f % 2 == 0) {
			int n = budget - 6;

			buf_addf(b, "diff --git a/csrc/generated/kernel_%02d.cu "
				 "b/csrc/generated/kernel_%02d.cu\nnew file mode "
				 "100644\nindex 0000000..%07x\n--- /dev/null\n"
				 "+++ b/csrc/generated/kernel_%02d.cu\n"
				 "@@ -0,0 +1,%d @@\n", f, f,
				 (unsigned)(rnd() & 0xfffffff), f, n);
			for (i = 0; i < n; i++) {
				buf_addch(b, '+');
				add_code(b, 4 * rint_in(0, 3));
				buf_addch(b, '\n');
			}
			fig->files++;
			fig->additions += n;
			fig->lines += 6 + n;
			continue;
		}
		add_file_header(b, &repos[0], fig);
		budget -= 4;
		while (budget > 0) {
			int size = budget < 80 ? budget : rint_in(8, 60);
			int body = size - 1, before, after, dels;

			if (budget - size < 8 && budget - size > 0)
				size = budget, body = size - 1;
			if (body < 1) {
				/* one line left: a context-only hunk can't
				 * be empty, so widen the previous picture */
				body = 1;
			}
			before = body >= 8 ? 3 : 0;
			after = body >= 8 ? 3 : 0;
			dels = (body - before - after) / 2;
			add_hunk(b, &line, before, dels,
				 body - before - after - dels, after, fig);
			budget -= 1 + body;
		}
	}
}

/* ---- JSON --------------------------------------------------------------- */

static void jstr(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", f);
		return;
	}
	putc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				putc(*p, f);
		}
	}
	putc('"', f);
}

static void write_jsonl(FILE *f, const struct item *it)
{
	size_t i;

	fputs("{\"repo\": ", f);
	jstr(f, it->repo);
	fprintf(f, ", \"number\": %lld, \"title\": ", it->number);
	jstr(f, it->title);
	fputs(", \"body\": ", f);
	jstr(f, it->body);
	fputs(", \"state\": \"closed\", \"state_reason\": \"completed\", "
	      "\"author\": ", f);
	jstr(f, it->author);
	fputs(", \"created_at\": ", f);
	jstr(f, it->created_at);
	fputs(", \"closed_at\": ", f);
	jstr(f, it->closed_at);
	fputs(", \"labels\": [", f);
	for (i = 0; i < it->nr_labels; i++) {
		if (i)
			fputs(", ", f);
		jstr(f, it->labels[i]);
	}
	fputs("], \"url\": ", f);
	jstr(f, it->url);
	fputs(", \"comments\": [", f);
	for (i = 0; i < it->nr_comments; i++) {
		const struct comment *c = &it->comments[i];

		fputs(i ? ", {\"author\": " : "{\"author\": ", f);
		jstr(f, c->author);
		fputs(", \"created_at\": ", f);
		jstr(f, c->created_at);
		fputs(", \"body\": ", f);
		jstr(f, c->body);
		putc('}', f);
	}
	fputs("], \"fixes\": [", f);
	for (i = 0; i < it->nr_fixes; i++) {
		const struct fix *x = &it->fixes[i];

		fprintf(f, "%s{\"number\": %lld, \"title\": ", i ? ", " : "",
			x->number);
		jstr(f, x->title);
		fputs(", \"body\": ", f);
		jstr(f, x->body);
		fputs(", \"url\": ", f);
		jstr(f, x->url);
		fputs(", \"merged_at\": ", f);
		jstr(f, x->merged_at);
		fprintf(f, ", \"additions\": %d, \"deletions\": %d, "
			"\"changed_files\": %d, \"diff\": ", x->additions,
			x->deletions, x->changed_files);
		jstr(f, x->diff);
		putc('}', f);
	}
	fputs("]}\n", f);
}

/* ---- items -------------------------------------------------------------- */

static const struct repo *pick_repo(void)
{
	int total = 0, r;
	size_t i;

	for (i = 0; i < NR_REPOS; i++)
		total += repos[i].weight;
	r = rint_in(0, total - 1);
	for (i = 0; i < NR_REPOS; i++) {
		if (r < repos[i].weight)
			return &repos[i];
		r -= repos[i].weight;
	}
	return &repos[0];
}

/*
 * Fill `it` (zeroed) with a synthetic bug of repository `repo_name`
 * (the source repository's vocabulary is `r`) and number `number`.
 * `huge` is NULL, or the text of the huge diff (then borrowed: the
 * caller clears it->fixes[0].diff before item_release()).
 */
static void make_item(struct item *it, const struct repo *r,
		      const char *repo_name, long long number,
		      const struct buf *huge, const struct diff_figures *hf)
{
	static const int comment_pct[] = { 15, 20, 18, 14, 10, 8, 6, 5, 4 };
	struct buf b = BUF_INIT;
	char when[32];
	long created, closed;
	int nc, i, p;

	it->repo = xstrdup(repo_name);
	it->number = number;
	add_words(&b, 30, 90);
	buf_setlen(&b, b.len - 1);	/* no full stop in a title */
	it->title = buf_detach(&b, NULL);
	make_body(&b, r);
	it->body = buf_detach(&b, NULL);
	it->state = xstrdup("closed");
	it->state_reason = xstrdup("completed");
	buf_addf(&b, "user%d", rint_in(1, 5000));
	it->author = buf_detach(&b, NULL);
	created = BASE_TIME + (long)(rnd() % (2 * 365 * 86400L));
	closed = created + rlog_in(3600, 300 * 86400);
	iso(when, created);
	it->created_at = xstrdup(when);
	iso(when, closed);
	it->closed_at = xstrdup(when);
	buf_addf(&b, "https://github.com/%s/issues/%lld", repo_name, number);
	it->url = buf_detach(&b, NULL);
	it->nr_labels = 1 + (chance(60) ? 1 : 0);
	it->labels = xcalloc(it->nr_labels + 1, sizeof(char *));
	it->labels[0] = xstrdup("bug");
	if (it->nr_labels > 1)
		it->labels[1] = xstrdup(PICK(gh_labels));

	for (p = rint_in(0, 99), nc = 0; nc < 8 && p >= comment_pct[nc]; nc++)
		p -= comment_pct[nc];
	it->nr_comments = (size_t)nc;
	it->comments = xcalloc((size_t)nc + 1, sizeof(struct comment));
	for (i = 0; i < nc; i++) {
		struct comment *c = &it->comments[i];

		buf_addf(&b, "user%d", rint_in(1, 5000));
		c->author = buf_detach(&b, NULL);
		iso(when, created + (long)((double)(closed - created) *
					   (i + 1) / (nc + 2)));
		c->created_at = xstrdup(when);
		make_comment(&b);
		c->body = buf_detach(&b, NULL);
	}

	it->nr_fixes = huge ? 1 : chance(5) ? 2 : 1;
	it->fixes = xcalloc(it->nr_fixes, sizeof(struct fix));
	for (i = 0; i < (int)it->nr_fixes; i++) {
		struct fix *f = &it->fixes[i];
		struct diff_figures fig;

		f->number = number + 1 + i + rint_in(0, 3);
		add_words(&b, 20, 70);
		buf_setlen(&b, b.len - 1);
		f->title = buf_detach(&b, NULL);
		buf_addf(&b, "Fixes #%lld.\n\n", number);
		add_words(&b, 40, 400);
		f->body = buf_detach(&b, NULL);
		buf_addf(&b, "https://github.com/%s/pull/%lld", repo_name,
			 f->number);
		f->url = buf_detach(&b, NULL);
		iso(when, closed - rint_in(0, 3600));
		f->merged_at = xstrdup(when);
		if (huge) {
			f->diff = huge->ptr;
			f->diff_len = huge->len;
			fig = *hf;
		} else {
			make_diff(&b, r, &fig);
			f->diff_len = b.len;
			f->diff = buf_detach(&b, NULL);
		}
		f->additions = fig.additions;
		f->deletions = fig.deletions;
		f->changed_files = fig.files;
	}
	buf_release(&b);
}

/* ---- labels ------------------------------------------------------------- */

struct dim_info {
	const struct dimension *d;
	double cum[MAX_CODES];	/* cumulative Zipf weights */
	int order[MAX_CODES];	/* code indexes sorted by key */
};

static int pick_code(const struct dim_info *di)
{
	double u = runit() * di->cum[di->d->nr_codes - 1];
	size_t k;

	for (k = 0; k + 1 < di->d->nr_codes; k++)
		if (u < di->cum[k])
			break;
	return (int)k;
}

static int pick_other(const struct dim_info *di, int not)
{
	int k;

	do
		k = pick_code(di);
	while (k == not && di->d->nr_codes > 1);
	return k;
}

/* The set of codes one coder chose: a bit per code index. */
static uint32_t pick_set(const struct dim_info *di)
{
	uint32_t s = 1u << pick_code(di);

	if (di->d->select_many && chance(25))
		s |= 1u << pick_code(di);
	return s;
}

/* A different set near `s`. */
static uint32_t vary_set(const struct dim_info *di, uint32_t s)
{
	uint32_t t;

	if (!di->d->select_many)
		return 1u << pick_other(di, __builtin_ctz(s));
	do {
		int k = pick_code(di);

		if (__builtin_popcount(s) > 1 && chance(50))
			t = s & ~(1u << __builtin_ctz(s));	/* drop one */
		else if (chance(50))
			t = s | (1u << k);			/* add one */
		else
			t = 1u << k;				/* replace */
	} while (t == s || !t);
	return t;
}

static void join_set(const struct dim_info *di, uint32_t s, struct buf *out)
{
	size_t i;

	buf_reset(out);
	for (i = 0; i < di->d->nr_codes; i++) {
		int k = di->order[i];

		if (!(s & (1u << k)))
			continue;
		if (out->len)
			buf_addch(out, ';');
		buf_addstr(out, di->d->codes[k].key);
	}
}

static const struct dimension *sort_dim;

static int cmp_code_key(const void *a, const void *b)
{
	return strcmp(sort_dim->codes[*(const int *)a].key,
		      sort_dim->codes[*(const int *)b].key);
}

static const char *const rationales[] = {
	"the definition's include rule decides it",
	"the traceback shows the root cause plainly",
	"the fix changes only the synchronization",
	"the reporter's follow-up comment settles it",
};

static const char *const causes[] = {
	"guideline_gap", "slip", "ambiguous", "slip",
};

struct writer {
	struct store *st;
	const char *version;
	sqlite3_stmt *label, *submit, *resolve, *audit;
	long long alice, bob, carol;
	long labels, disagreements;
	long long audit_id;	/* the newest audit row, */
	char audit_hash[SHA256_HEX_LEN + 1];	/* and its hash */
};

/* The audit row bugcoder writes with each change, chained as
 * audit_write_detail() chains it (without its query a row), so that
 * `audit verify` finds the state its log's replay gives. */
static int write_audit(struct writer *w, const char *at, const char *actor,
		       const char *action, long long item,
		       const char *dimension, const char *new_value,
		       const char *detail, struct err *e)
{
	struct audit_row r = {
		.id = w->audit_id + 1, .at = at, .actor = actor,
		.action = action, .item_id = item, .dimension = dimension,
		.new_value = new_value, .detail = detail,
	};
	sqlite3_stmt *s = w->audit;
	int rc;

	audit_row_hash(w->audit_hash, &r, r.hash);
	sqlite3_bind_int64(s, 1, r.id);
	sqlite3_bind_text(s, 2, at, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, actor, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, action, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 5, item);
	store_bind_text(s, 6, dimension);
	store_bind_text(s, 7, new_value);
	store_bind_text(s, 8, detail);
	sqlite3_bind_text(s, 9, r.hash, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return store_error(w->st, e, "writing the audit log");
	w->audit_id = r.id;
	memcpy(w->audit_hash, r.hash, sizeof(r.hash));
	return 0;
}

static int step_done(struct writer *w, sqlite3_stmt *s, struct err *e)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return store_error(w->st, e, "writing the labels");
	return 0;
}

static int write_codes(struct writer *w, long long item, long long member,
		       const struct dim_info *di, uint32_t set,
		       const char *at, struct err *e)
{
	struct buf joined = BUF_INIT;
	size_t k;
	int rc;

	join_set(di, set, &joined);
	rc = write_audit(w, at, member == w->alice ? "alice" : "bob", "label",
			 item, di->d->key, joined.ptr, NULL, e);
	buf_release(&joined);
	if (rc < 0)
		return -1;
	for (k = 0; k < di->d->nr_codes; k++) {
		if (!(set & (1u << k)))
			continue;
		sqlite3_bind_int64(w->label, 1, item);
		sqlite3_bind_int64(w->label, 2, member);
		sqlite3_bind_text(w->label, 3, di->d->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(w->label, 4, di->d->codes[k].key, -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(w->label, 5, w->version, -1, SQLITE_STATIC);
		sqlite3_bind_text(w->label, 6, at, -1, SQLITE_TRANSIENT);
		if (step_done(w, w->label, e) < 0)
			return -1;
		w->labels++;
	}
	return 0;
}

static int code_item(struct writer *w, const struct dim_info *dims,
		     size_t nr_dims, long long item, long when, struct err *e)
{
	struct buf c1 = BUF_INIT, c2 = BUF_INIT, fin = BUF_INIT;
	const char *last_rationale = NULL, *last_cause = NULL;
	char at_a[32], at_b[32], at_c[32];
	size_t d;
	int ret = -1;

	iso(at_a, when);
	iso(at_b, when + rint_in(60, 86400));
	iso(at_c, when + 2 * 86400 + rint_in(0, 86400));
	for (d = 0; d < nr_dims; d++) {
		const struct dim_info *di = &dims[d];
		uint32_t a = pick_set(di), b = a;
		int alice_first;

		if (chance(DISAGREE_PCT))
			b = vary_set(di, a);
		if (write_codes(w, item, w->alice, di, a, at_a, e) < 0 ||
		    write_codes(w, item, w->bob, di, b, at_b, e) < 0)
			goto out;
		if (a == b)
			continue;
		/* carol settles it: one coder's answer, or (many) both */
		w->disagreements++;
		alice_first = chance(50);
		join_set(di, alice_first ? a : b, &c1);
		join_set(di, alice_first ? b : a, &c2);
		join_set(di, di->d->select_many && chance(30) ? a | b :
			 chance(50) ? a : b, &fin);
		sqlite3_bind_int64(w->resolve, 1, item);
		sqlite3_bind_text(w->resolve, 2, di->d->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(w->resolve, 3, fin.ptr, -1, SQLITE_TRANSIENT);
		last_rationale = PICK(rationales);
		last_cause = PICK(causes);
		sqlite3_bind_text(w->resolve, 4, last_rationale, -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(w->resolve, 5, last_cause, -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(w->resolve, 6, alice_first ? "alice" : "bob",
				  -1, SQLITE_STATIC);
		sqlite3_bind_text(w->resolve, 7, c1.ptr, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(w->resolve, 8, alice_first ? "bob" : "alice",
				  -1, SQLITE_STATIC);
		sqlite3_bind_text(w->resolve, 9, c2.ptr, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(w->resolve, 10, w->carol);
		sqlite3_bind_text(w->resolve, 11, at_c, -1, SQLITE_STATIC);
		if (step_done(w, w->resolve, e) < 0)
			goto out;
		{
			struct buf det = BUF_INIT;
			int rc;

			audit_detail_str(&det, "rationale", last_rationale);
			audit_detail_str(&det, "cause", last_cause);
			audit_detail_str(&det, "coder1", alice_first ? "alice" :
					 "bob");
			audit_detail_str(&det, "coder1_codes", c1.ptr);
			audit_detail_str(&det, "coder2", alice_first ? "bob" :
					 "alice");
			audit_detail_str(&det, "coder2_codes", c2.ptr);
			rc = write_audit(w, at_c, "carol", "resolve", item,
					 di->d->key, fin.ptr,
					 audit_detail_end(&det), e);
			buf_release(&det);
			if (rc < 0)
				goto out;
		}
	}
	sqlite3_bind_int64(w->submit, 1, item);
	sqlite3_bind_int64(w->submit, 2, w->alice);
	sqlite3_bind_text(w->submit, 3, at_a, -1, SQLITE_TRANSIENT);
	if (step_done(w, w->submit, e) < 0 ||
	    write_audit(w, at_a, "alice", "submit", item, NULL, at_a, NULL,
			e) < 0)
		goto out;
	sqlite3_bind_int64(w->submit, 1, item);
	sqlite3_bind_int64(w->submit, 2, w->bob);
	sqlite3_bind_text(w->submit, 3, at_b, -1, SQLITE_TRANSIENT);
	if (step_done(w, w->submit, e) < 0 ||
	    write_audit(w, at_b, "bob", "submit", item, NULL, at_b, NULL,
			e) < 0)
		goto out;
	ret = 0;
out:
	buf_release(&c1);
	buf_release(&c2);
	buf_release(&fin);
	return ret;
}

/* Member `name` added by the owner as bugcoder adds one (audited); its
 * id, or -1. */
static long long add_member(struct store *st, const struct actor *owner,
			    const char *name, enum role role, struct err *e)
{
	long long id;
	enum role r;

	if (member_add(st, owner, name, role, e) < 0 ||
	    member_find(st, name, &id, &r, e) < 0)
		return -1;
	return id;
}

/* ---- main --------------------------------------------------------------- */

struct opts {
	const char *dir, *codebook;
	long items, import_items, huge_lines;
	unsigned long long seed;
};

static void usage(void)
{
	fprintf(stderr, "usage: gen --dir DIR [--items N] [--seed S] "
		"[--import-items M] [--huge-lines L] [--codebook FILE]\n");
	exit(2);
}

static void parse_args(struct opts *o, int argc, char **argv)
{
	int i;

	o->dir = NULL;
	o->codebook = "codebooks/llm-framework-bugs.json";
	o->items = 100000;
	o->import_items = 10000;
	o->huge_lines = 200000;
	o->seed = 1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		if (!strcmp(a, "--dir"))
			o->dir = v;
		else if (!strcmp(a, "--codebook"))
			o->codebook = v;
		else if (!strcmp(a, "--items"))
			o->items = strtol(v, NULL, 10);
		else if (!strcmp(a, "--import-items"))
			o->import_items = strtol(v, NULL, 10);
		else if (!strcmp(a, "--huge-lines"))
			o->huge_lines = strtol(v, NULL, 10);
		else if (!strcmp(a, "--seed"))
			o->seed = strtoull(v, NULL, 10);
		else
			usage();
		i++;
	}
	if (!o->dir || o->items < 1 || o->import_items < 0 ||
	    o->huge_lines < 200)
		usage();
}

static void die(const struct err *e)
{
	fprintf(stderr, "gen: %s\n", e->msg);
	exit(1);
}

static char *path_in(const char *dir, const char *name)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s/%s", dir, name);
	return buf_detach(&b, NULL);
}

static void remove_study(const char *db)
{
	struct buf b = BUF_INIT;

	unlink(db);
	buf_addf(&b, "%s-wal", db);
	unlink(b.ptr);
	buf_reset(&b);
	buf_addf(&b, "%s-shm", db);
	unlink(b.ptr);
	buf_release(&b);
}

int main(int argc, char **argv)
{
	struct opts o;
	struct store st = { 0 };
	struct err e = ERR_INIT;
	struct codebook cb = CODEBOOK_INIT;
	struct dim_info *dims;
	struct writer w = { 0 };
	struct actor owner = ACTOR_INIT;
	struct buf huge = BUF_INIT;
	struct diff_figures hf;
	long long next_number[NR_REPOS], huge_id = 0;
	char *db, *jsonl, *hpath, *meta, *huge_name = NULL;
	FILE *jf, *hfile, *mf;
	long i, comments = 0, fixes = 0;
	size_t d, k;
	struct stat sb;
	struct timespec t0, t1;

	parse_args(&o, argc, argv);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	mkdir(o.dir, 0777);
	db = path_in(o.dir, "study.db");
	jsonl = path_in(o.dir, "import.jsonl");
	hpath = path_in(o.dir, "huge.diff");
	meta = path_in(o.dir, "meta.json");
	unlink(meta);
	remove_study(db);

	rng_state = o.seed * 0x2545f4914f6cdd1dULL + 17;
	for (k = 0; k < NR_REPOS; k++)
		next_number[k] = 100 + rint_in(0, 400);

	if (study_create(&st, db, "Synthetic benchmark study", o.codebook,
			 &e) < 0)
		die(&e);
	if (store_exec(&st, "PRAGMA synchronous = OFF", &e) < 0 ||
	    study_codebook(&st, &cb, NULL, &e) < 0)
		die(&e);
	dims = xcalloc(cb.nr_dims, sizeof(*dims));
	for (d = 0; d < cb.nr_dims; d++) {
		double acc = 0;

		dims[d].d = &cb.dims[d];
		if (cb.dims[d].nr_codes > MAX_CODES) {
			fprintf(stderr, "gen: %s: more than %d codes\n",
				cb.dims[d].key, MAX_CODES);
			return 1;
		}
		for (k = 0; k < cb.dims[d].nr_codes; k++) {
			acc += 1.0 / (double)(k + 1);
			dims[d].cum[k] = acc;
			dims[d].order[k] = (int)k;
		}
		sort_dim = &cb.dims[d];
		qsort(dims[d].order, cb.dims[d].nr_codes, sizeof(int),
		      cmp_code_key);
	}

	w.st = &st;
	w.version = cb.version;
	if (member_resolve(&st, NULL, &owner, &e) < 0 ||
	    store_begin(&st, &e) < 0 ||
	    (w.alice = add_member(&st, &owner, "alice", ROLE_ANNOTATOR,
				  &e)) < 0 ||
	    (w.bob = add_member(&st, &owner, "bob", ROLE_ANNOTATOR, &e)) < 0 ||
	    (w.carol = add_member(&st, &owner, "carol", ROLE_ADJUDICATOR,
				  &e)) < 0 ||
	    store_commit(&st, &e) < 0 ||
	    audit_last(&st, &w.audit_id, w.audit_hash, &e) < 0)
		die(&e);
	actor_release(&owner);
	w.label = store_prepare(&st, "INSERT INTO labels (item_id, member_id, "
				"dimension, code, codebook_version, labeled_at) "
				"VALUES (?, ?, ?, ?, ?, ?)", &e);
	w.submit = store_prepare(&st, "INSERT INTO submissions (item_id, "
				 "member_id, submitted_at) VALUES (?, ?, ?)",
				 &e);
	w.resolve = store_prepare(&st, "INSERT INTO resolutions (item_id, "
				  "dimension, code, rationale, cause, coder1, "
				  "coder1_codes, coder2, coder2_codes, "
				  "adjudicator_id, resolved_at) VALUES (?, ?, "
				  "?, ?, ?, ?, ?, ?, ?, ?, ?)", &e);
	w.audit = store_prepare(&st, "INSERT INTO audit (id, at, actor, "
				"action, item_id, dimension, new, detail, hash) "
				"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", &e);
	if (!w.label || !w.submit || !w.resolve || !w.audit)
		die(&e);

	/* the huge diff first: it is item 1 */
	make_huge_diff(&huge, (int)o.huge_lines, &hf);
	hfile = fopen(hpath, "w");
	if (!hfile || fwrite(huge.ptr, 1, huge.len, hfile) != huge.len ||
	    fclose(hfile)) {
		perror(hpath);
		return 1;
	}

	for (i = 0; i < o.items; i++) {
		struct item it;
		const struct repo *r = i ? pick_repo() : &repos[0];
		long long number = next_number[r - repos];

		next_number[r - repos] += rint_in(1, 4);
		if (i % BATCH == 0 && store_begin(&st, &e) < 0)
			die(&e);
		memset(&it, 0, sizeof(it));
		make_item(&it, r, r->name, number, i ? NULL : &huge, &hf);
		if (item_save(&st, &it, &e) < 0)
			die(&e);
		if (!i) {
			huge_id = it.id;
			huge_name = item_name(it.repo, it.number);
			it.fixes[0].diff = NULL;
		}
		comments += (long)it.nr_comments;
		fixes += (long)it.nr_fixes;
		if (code_item(&w, dims, cb.nr_dims, it.id,
			      BASE_TIME + 400L * 86400 + i * 37, &e) < 0)
			die(&e);
		item_release(&it);
		if ((i + 1) % BATCH == 0 || i + 1 == o.items) {
			if (store_commit(&st, &e) < 0)
				die(&e);
		}
	}
	sqlite3_finalize(w.label);
	sqlite3_finalize(w.submit);
	sqlite3_finalize(w.resolve);
	sqlite3_finalize(w.audit);
	if (store_exec(&st, "PRAGMA wal_checkpoint(TRUNCATE)", &e) < 0)
		die(&e);
	store_close(&st);

	/* the import file: other items of the same kind, in repositories
	 * of their own ("owner/name-import") */
	jf = fopen(jsonl, "w");
	if (!jf) {
		perror(jsonl);
		return 1;
	}
	for (i = 0; i < o.import_items; i++) {
		struct item it;
		const struct repo *r = pick_repo();
		struct buf name = BUF_INIT;
		long long number = next_number[r - repos];

		next_number[r - repos] += rint_in(1, 4);
		buf_addf(&name, "%s-import", r->name);
		memset(&it, 0, sizeof(it));
		make_item(&it, r, name.ptr, number, NULL, NULL);
		write_jsonl(jf, &it);
		item_release(&it);
		buf_release(&name);
	}
	if (fclose(jf)) {
		perror(jsonl);
		return 1;
	}

	clock_gettime(CLOCK_MONOTONIC, &t1);
	mf = fopen(meta, "w");
	if (!mf) {
		perror(meta);
		return 1;
	}
	if (stat(db, &sb) < 0)
		sb.st_size = 0;
	fprintf(mf, "{\"format\": %d, \"items\": %ld, \"seed\": %llu, "
		"\"import_items\": %ld, \"huge_lines\": %ld,\n"
		" \"huge_item\": \"%s\", \"huge_item_id\": %lld, "
		"\"huge_additions\": %d, \"huge_deletions\": %d, "
		"\"huge_files\": %d, \"huge_bytes\": %zu,\n"
		" \"comments\": %ld, \"fixes\": %ld, \"labels\": %ld, "
		"\"disagreements\": %ld, \"study_bytes\": %lld, "
		"\"seconds\": %.1f}\n", GEN_FORMAT, o.items, o.seed,
		o.import_items, o.huge_lines, huge_name, huge_id,
		hf.additions, hf.deletions, hf.files, huge.len, comments,
		fixes, w.labels, w.disagreements, (long long)sb.st_size,
		(double)(t1.tv_sec - t0.tv_sec) +
		(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (fclose(mf)) {
		perror(meta);
		return 1;
	}
	free(huge_name);
	buf_release(&huge);
	free(dims);
	codebook_release(&cb);
	free(db);
	free(jsonl);
	free(hpath);
	free(meta);
	return 0;
}
