#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate the bundled sample study: items.jsonl, hostile-raw.jsonl, labels.csv,
screening.csv and coding.csv.

The bugs are invented for bugcoder's demo and tests.  Diffs are written here
as hunk bodies (lines starting with ' ', '-' or '+'); the hunk headers, the
index lines and the additions/deletions/changed_files figures are computed,
so they always agree with the text.

    python3 tests/sample/make_sample.py      # rewrites the files beside it
    python3 tests/sample/check.py            # validates them
"""
import csv
import hashlib
import io
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))

DS = "microsoft/DeepSpeed"
CAI = "hpcaitech/ColossalAI"
MLM = "NVIDIA/Megatron-LM"

ITEMS = []
LABELS = {}  # item name -> {"alice": {...}, "bob": {...}}


# ---- diffs -----------------------------------------------------------------

def _sha(*parts):
    h = hashlib.sha1()
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _body_lines(body, eol="\n"):
    """Hunk body text -> list of diff lines (without line ending)."""
    if body.startswith("\n"):
        body = body[1:]
    if body.endswith("\n"):
        body = body[:-1]
    out = []
    for ln in body.split("\n"):
        if ln == "":
            ln = " "          # an empty context line is a single space
        if ln[0] not in " +-\\":
            raise ValueError("bad diff line: %r" % ln)
        out.append(ln)
    return out


def _trim_context(lines, old_start, context=3):
    """Keep at most `context` lines of context before and after the changes."""
    lead = 0
    while lead < len(lines) and lines[lead][0] == " ":
        lead += 1
    trail = 0
    while trail < len(lines) - lead and lines[len(lines) - 1 - trail][0] == " ":
        trail += 1
    drop_lead = max(0, lead - context)
    drop_trail = max(0, trail - context)
    return lines[drop_lead:len(lines) - drop_trail], old_start + drop_lead


def _range(start, count):
    if count == 1:
        return "%d" % start
    return "%d,%d" % (start, count)


def F(path, *hunks, new=False, deleted=False, eol="\n"):
    """One file of a diff.  hunks: (old_start, section_heading, body) tuples.
    eol="\r\n" gives the content lines CRLF endings, as a file checked in
    with Windows line endings shows in `git diff`."""
    return {"path": path, "hunks": hunks, "new": new, "deleted": deleted,
            "eol": eol}


def render_files(files):
    """-> (diff text, additions, deletions, changed_files)"""
    out = []
    adds = dels = 0
    for f in files:
        path = f["path"]
        hunk_text = []
        offset = 0
        for old_start, heading, body in f["hunks"]:
            lines = _body_lines(body)
            if not f["new"] and not f["deleted"]:
                lines, old_start = _trim_context(lines, old_start)
            n_old = sum(1 for l in lines if l[0] in " -")
            n_new = sum(1 for l in lines if l[0] in " +")
            a = sum(1 for l in lines if l[0] == "+")
            d = sum(1 for l in lines if l[0] == "-")
            adds += a
            dels += d
            if f["new"]:
                o_start, n_start = 0, 1
            elif f["deleted"]:
                o_start, n_start = 1, 0
            else:
                o_start, n_start = old_start, old_start + offset
            offset += a - d
            head = "@@ -%s +%s @@" % (_range(o_start, n_old), _range(n_start, n_new))
            if heading:
                head += " " + heading
            hunk_text.append(head + "\n")
            for l in lines:
                hunk_text.append(l + (f["eol"] if l[0] != "\\" else "\n"))
        old_id = _sha("old", path, "".join(hunk_text))[:7]
        new_id = _sha("new", path, "".join(hunk_text))[:7]
        out.append("diff --git a/%s b/%s\n" % (path, path))
        if f["new"]:
            out.append("new file mode 100644\n")
            out.append("index 0000000..%s\n" % new_id)
            out.append("--- /dev/null\n+++ b/%s\n" % path)
        elif f["deleted"]:
            out.append("deleted file mode 100644\n")
            out.append("index %s..0000000\n" % old_id)
            out.append("--- a/%s\n+++ /dev/null\n" % path)
        else:
            out.append("index %s..%s 100644\n" % (old_id, new_id))
            out.append("--- a/%s\n+++ b/%s\n" % (path, path))
        out.extend(hunk_text)
    return "".join(out), adds, dels, len(files)


def fix(number, title, body, merged_at, *files):
    diff, a, d, n = render_files(files)
    return {"number": number, "title": title, "body": body,
            "merged_at": merged_at, "additions": a, "deletions": d,
            "changed_files": n, "diff": diff}


# ---- items -----------------------------------------------------------------

def C(author, created_at, body):
    return {"author": author, "created_at": created_at, "body": body}


def item(repo, number, title, body, author, created_at, closed_at, labels,
         comments=(), fixes=(), state_reason="completed"):
    it = {"repo": repo, "number": number, "title": title, "body": body,
          "state": "closed", "state_reason": state_reason, "author": author,
          "created_at": created_at, "closed_at": closed_at,
          "labels": list(labels),
          "url": "https://github.com/%s/issues/%d" % (repo, number),
          "comments": list(comments), "fixes": list(fixes)}
    ITEMS.append(it)
    return it


def name(repo, number):
    return "%s#%d" % (repo, number)


def code(repo, number, alice, bob=None):
    """Labels of the two annotators.  alice: dict dimension -> code or list of
    codes; bob: only the dimensions where bob chose differently."""
    b = dict(alice)
    if bob:
        b.update(bob)
    LABELS[name(repo, number)] = {"alice": alice, "bob": b}


# ---- microsoft/DeepSpeed -----------------------------------------------------

DS_SYSINFO_A100 = """\
**System info (please complete the following information):**
 - OS: Ubuntu 22.04
 - GPU count and types: 2 machines with 8x A100-SXM4-80GB each
 - Interconnects: InfiniBand HDR 200 Gb/s
 - Python version: 3.10.12
"""

item(DS, 3468,
     "[BUG] GatheredParameters(modifier_rank=0) writes garbage embeddings when zero.Init uses a custom data_parallel_group",
     """**Describe the bug**
I resize the token embeddings of a model created under `deepspeed.zero.Init(data_parallel_group=...)` \
(we run two replicas of the model side by side, each replica on its own group of 4 GPUs). The resize \
is done in the usual way inside `deepspeed.zero.GatheredParameters(..., modifier_rank=0)`. After the \
context exits, the new rows of the embedding are correct on the first group but **random** on the \
second group. With the default world group everything is fine.

**To Reproduce**
```python
import torch, deepspeed
import deepspeed.comm as dist

deepspeed.init_distributed()
rank = dist.get_rank()
ranks = [0, 1, 2, 3] if rank < 4 else [4, 5, 6, 7]
groups = [dist.new_group([0, 1, 2, 3]), dist.new_group([4, 5, 6, 7])]
group = groups[0] if rank < 4 else groups[1]

with deepspeed.zero.Init(data_parallel_group=group, config_dict_or_path="ds_config.json"):
    emb = torch.nn.Embedding(32000, 4096)

with deepspeed.zero.GatheredParameters(emb.weight, modifier_rank=0):
    if dist.get_rank(group=group) == 0:
        torch.nn.init.constant_(emb.weight[31990:], 1.0)

with deepspeed.zero.GatheredParameters(emb.weight):
    print(rank, emb.weight[31995, :4])
```
Run with `deepspeed --num_gpus 8 repro.py`. Ranks 0-3 print `tensor([1., 1., 1., 1.])`, ranks 4-7 print \
values of the original initialisation.

**Expected behavior**
Rank 0 *of the parameter's group* should be the source of the broadcast, so every replica gets its \
own modified weights.

**ds_report output**
```
DeepSpeed general environment info:
torch install path ............... ['/opt/conda/lib/python3.10/site-packages/torch']
torch version .................... 2.0.1+cu118
deepspeed install path ........... ['/opt/conda/lib/python3.10/site-packages/deepspeed']
deepspeed info ................... 0.9.2, unknown, unknown
torch cuda version ............... 11.8
nvcc version ..................... 11.8
deepspeed wheel compiled w. ...... torch 2.0, cuda 11.8
```

""" + DS_SYSINFO_A100 + """
**Additional context**
I think `modifier_rank` is passed straight to `dist.broadcast` as `src`, which expects a *global* \
rank. For the second group, global rank 0 is not even a member.
""",
     "mrhodes-ml", "2023-05-08T14:22:31Z", "2023-05-19T21:04:12Z",
     ["bug", "training"],
     comments=[
         C("tjruwase", "2023-05-09T02:11:45Z",
           "@mrhodes-ml, thanks for the clear repro. Your reading is right: `src` of `broadcast` is a global "
           "rank. Would you like to submit a PR? Otherwise we will pick it up."),
         C("mrhodes-ml", "2023-05-09T08:40:02Z",
           "Happy to. Is `dist.get_global_rank(group, modifier_rank)` available in `deepspeed.comm` for all backends?"),
         C("tjruwase", "2023-05-09T15:27:19Z",
           "Yes, it forwards to `torch.distributed.get_global_rank` (or `_get_global_rank` on older torch)."),
         C("mrhodes-ml", "2023-05-19T21:05:30Z", "Fixed by #3490, thanks for the quick review."),
     ],
     fixes=[fix(3490, "Use the global rank of modifier_rank in GatheredParameters",
                "`modifier_rank` is a rank inside the parameters' process group, but `dist.broadcast` "
                "takes a global rank. Convert it.\n\nFixes #3468",
                "2023-05-19T21:04:10Z",
                F("deepspeed/runtime/zero/partition_parameters.py",
                  (1893, "def __init__(self, params, modifier_rank=None, fwd_module=None, enabled=True):", """
         self.params = sorted(set(self.params), key=lambda x: x.ds_id)
         self.src_rank = None
         if modifier_rank is not None:
-            self.src_rank = modifier_rank
+            self.src_rank = dist.get_global_rank(self.params[0].ds_process_group, modifier_rank)
         self.fwd_module = fwd_module
         if self.fwd_module is not None:
             # is a no-op if already registered
""")))])
code(DS, 3468,
     {"symptom": "incorrect_functionality", "root_cause": "api_misuse",
      "fix_pattern": "parameter_handling", "stage": "communication", "phase": "training"},
     {"root_cause": "distributed_communication"})


item(DS, 4187,
     "[BUG] ZeRO-3 hangs in all-gather at step 2 when a layer is skipped (LayerDrop) with prefetching enabled",
     """**Describe the bug**
Training a 7B decoder with ZeRO-3 and LayerDrop (each rank skips a random subset of layers in the \
forward pass) hangs at the start of the second step. GPU utilisation goes to 100% on all ranks and \
after 30 minutes the NCCL watchdog kills the job. With `stage3_prefetch_bucket_size: 0` it trains \
normally, so it seems to be the prefetch following the trace recorded in step 1.

**To Reproduce**
ds_config:
```json
{
  "train_micro_batch_size_per_gpu": 4,
  "gradient_accumulation_steps": 8,
  "bf16": {"enabled": true},
  "zero_optimization": {
    "stage": 3,
    "overlap_comm": true,
    "stage3_prefetch_bucket_size": 5e8,
    "stage3_param_persistence_threshold": 1e5,
    "stage3_max_live_parameters": 1e9
  }
}
```
Launch: `deepspeed --hostfile hostfile train.py --deepspeed_config ds_config.json --layerdrop 0.1`

Log of rank 3:
```
[E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1843, OpType=_ALLGATHER_BASE, NumelIn=4194304, NumelOut=33554432, Timeout(ms)=1800000) ran for 1800452 milliseconds before timing out.
[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.
[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.
terminate called after throwing an instance of 'std::runtime_error'
```
`py-spy dump` on two ranks shows them in different layers:
```
rank 0: fetch_sub_module (deepspeed/runtime/zero/partitioned_param_coordinator.py:301)  <- layers.17
rank 5: fetch_sub_module (deepspeed/runtime/zero/partitioned_param_coordinator.py:301)  <- layers.19
```

**Expected behavior**
Either prefetching copes with a module order that changes between steps, or it is turned off for \
that step. A hang is the worst outcome.

""" + DS_SYSINFO_A100 + """ - DeepSpeed 0.10.1, torch 2.0.1+cu118, NCCL 2.17.1

**Launcher context**
`deepspeed` launcher with a hostfile (pdsh).
""",
     "wenjie-zh", "2023-08-22T09:51:07Z", "2023-09-14T18:30:55Z",
     ["bug", "training"],
     comments=[
         C("tjruwase", "2023-08-23T17:02:33Z",
           "Thanks. The coordinator is supposed to notice that the trace is invalid and stop prefetching. "
           "Can you set `\"wall_clock_breakdown\": true` and share the warnings printed at step 2? There "
           "should be an `Invalidate trace cache @ step 1` line."),
         C("wenjie-zh", "2023-08-24T03:18:41Z",
           "No such line on any rank. I only see `prefetching 24 params` messages with `DS_DEBUG` set."),
         C("stas00", "2023-08-24T11:45:09Z",
           "I've hit this too with a MoE model where some experts get no tokens on some ranks. Same "
           "symptom, `stage3_prefetch_bucket_size: 0` is the workaround for now."),
         C("tjruwase", "2023-09-07T21:12:50Z",
           "The trace is only checked against the *first* submodule of each step, so a skipped layer in "
           "the middle goes unnoticed and every rank prefetches from its own stale trace. Please try #4203."),
         C("wenjie-zh", "2023-09-11T06:37:14Z", "#4203 fixes it for me: 2000 steps with LayerDrop 0.1, no hang."),
     ],
     fixes=[fix(4203, "ZeRO-3: invalidate the trace when the module order changes mid-step",
                "The coordinator compared the executing module with the trace only at the first "
                "submodule. Check at every fetch and stop prefetching once the order diverges, so "
                "that ranks never issue all-gathers in different orders.\n\nFixes #4187",
                "2023-09-14T18:30:51Z",
                F("deepspeed/runtime/zero/partitioned_param_coordinator.py",
                  (284, "def fetch_sub_module(self, current_submodule: Module, forward: bool) -> None:", """
         # check that we are following the trace recorded in the previous step
         if not self.is_complete_trace():  # not yet finished tracing
             self.record_module(current_submodule)
-        elif self.__step_id == 0:
-            self.__check_trace(current_submodule)
+        elif not self.__is_next_in_trace(current_submodule):
+            # the module order changed (e.g. a skipped layer); a stale trace
+            # would make ranks prefetch different parameters and deadlock
+            print_rank_0(f"Invalidate trace cache @ step {self.__step_id}: {current_submodule.id}", force=False)
+            self._invalidate_trace()
 
         params_to_fetch = frozenset(iter_params(current_submodule))
         fetch_numel = sum(
""")))])
code(DS, 4187,
     {"symptom": "hang", "root_cause": "distributed_communication",
      "fix_pattern": "conditional_logic", "stage": "communication", "phase": "training"})


item(DS, 4422,
     "[BUG] JIT build of fused_adam fails on H100: nvcc fatal : Unsupported gpu architecture 'compute_90'",
     """**Describe the bug**
On a node with H100 GPUs and the CUDA 11.7 toolkit (which our cluster module provides), the first \
call of `deepspeed.initialize` tries to JIT-compile `fused_adam` and fails:

```
Using /home/pkumar/.cache/torch_extensions/py39_cu117 as PyTorch extensions root...
Creating extension directory /home/pkumar/.cache/torch_extensions/py39_cu117/fused_adam...
Detected CUDA files, patching ldflags
Emitting ninja build file /home/pkumar/.cache/torch_extensions/py39_cu117/fused_adam/build.ninja...
Building extension module fused_adam...
[1/3] /usr/local/cuda-11.7/bin/nvcc  -DTORCH_EXTENSION_NAME=fused_adam ... -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 ... -c multi_tensor_adam.cu -o multi_tensor_adam.cuda.o
FAILED: multi_tensor_adam.cuda.o
nvcc fatal   : Unsupported gpu architecture 'compute_90'
ninja: build stopped: subcommand failed.
Traceback (most recent call last):
  File "/home/pkumar/miniconda3/lib/python3.9/site-packages/torch/utils/cpp_extension.py", line 1893, in _run_ninja_build
    subprocess.run(
  File "/home/pkumar/miniconda3/lib/python3.9/subprocess.py", line 528, in run
    raise CalledProcessError(retcode, process.args,
subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "train.py", line 212, in <module>
    model_engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=params)
  File "/home/pkumar/miniconda3/lib/python3.9/site-packages/deepspeed/ops/adam/fused_adam.py", line 71, in __init__
    fused_adam_cuda = FusedAdamBuilder().load()
  File "/home/pkumar/miniconda3/lib/python3.9/site-packages/deepspeed/ops/op_builder/builder.py", line 458, in load
    return self.jit_load(verbose)
  File "/home/pkumar/miniconda3/lib/python3.9/site-packages/deepspeed/ops/op_builder/builder.py", line 502, in jit_load
    op_module = load(name=self.name,
RuntimeError: Error building extension 'fused_adam'
```

**To Reproduce**
1. CUDA toolkit 11.7, torch 1.13.1+cu117, H100 80GB.
2. `pip install deepspeed==0.10.3` (no pre-built ops).
3. Any config with `"optimizer": {"type": "AdamW"}`.

**Expected behavior**
The builder should not ask nvcc for an architecture it does not know. Building for `sm_80` with PTX \
would run fine on the H100. Setting `TORCH_CUDA_ARCH_LIST="8.0+PTX"` works around it.

**System info**
| item | value |
|---|---|
| OS | Rocky Linux 8.8 |
| GPU | 4x H100 80GB HBM3 |
| CUDA toolkit | 11.7 |
| torch | 1.13.1+cu117 |
| deepspeed | 0.10.3 |
| Python | 3.9.16 |
""",
     "pkumar-hpc", "2023-09-28T13:05:44Z", "2023-10-03T16:47:08Z",
     ["bug", "training"],
     comments=[
         C("loadams", "2023-09-28T16:20:13Z",
           "Thanks @pkumar-hpc. We compute the arch list from the visible GPUs and don't check it against the "
           "nvcc version. CUDA 11.8 is the first toolkit with `compute_90`. We'll filter the list."),
         C("loadams", "2023-10-03T16:48:00Z", "Closed by #4430. It will be in 0.11.0."),
     ],
     fixes=[fix(4430, "op_builder: drop compute capabilities that the local nvcc cannot build",
                "When the GPU is newer than the CUDA toolkit, `compute_capability_args` asked nvcc for an "
                "unsupported arch. Drop those archs and build PTX for the newest supported one instead, "
                "with a warning.\n\nFixes #4422",
                "2023-10-03T16:47:01Z",
                F("op_builder/builder.py",
                  (578, "def compute_capability_args(self, cross_compile_archs=None):", """
             ccs = [f"{cc[0]}.{cc[1]}" for cc in sorted(set(ccs))]
         ccs = self.filter_ccs(ccs)
         if len(ccs) == 0:
             raise RuntimeError(
                 f"Unable to load {self.name} op due to no compute capabilities remaining after filtering")
 
+        # nvcc before 11.8 does not know sm_89/sm_90; build PTX for the newest
+        # architecture it supports so that the op still JIT-loads on the GPU
+        cuda_major, cuda_minor = installed_cuda_version()
+        if (cuda_major, cuda_minor) < (11, 8):
+            too_new = [cc for cc in ccs if cc.split('.')[0] == '9' or cc == '8.9']
+            if too_new:
+                self.warning(f"{self.name}: nvcc {cuda_major}.{cuda_minor} cannot build for {too_new}, "
+                             "building 8.0+PTX instead")
+                ccs = [cc for cc in ccs if cc not in too_new] or ['8.0']
+                ccs[-1] = ccs[-1].rstrip('+PTX') + '+PTX'
+
         args = []
         self.enable_bf16 = True
         for cc in ccs:
""")))])
code(DS, 4422,
     {"symptom": "build_failure", "root_cause": "version_incompatibility",
      "fix_pattern": "version_compatibility", "stage": "initialization", "phase": "training"})


item(DS, 4650,
     "[BUG] ZeRO-3 with offload_param to CPU still OOMs on GPU while the model is being built",
     """**Describe the bug**
With `offload_param: {device: cpu, pin_memory: true}` I expected the GPU to hold almost nothing while \
`zero.Init` builds a 30B model, but memory on GPU 0 climbs to 79 GB during construction and the job \
dies before training starts. Without `pin_memory` the peak is lower but still ~40 GB.

**To Reproduce**
```yaml
# accelerate config
compute_environment: LOCAL_MACHINE
distributed_type: DEEPSPEED
deepspeed_config:
  deepspeed_config_file: ds_z3_offload.json
  zero3_init_flag: true
num_machines: 1
num_processes: 8
```
```json
{
  "zero_optimization": {
    "stage": 3,
    "offload_param": {"device": "cpu", "pin_memory": true},
    "offload_optimizer": {"device": "cpu", "pin_memory": true}
  },
  "bf16": {"enabled": true},
  "train_micro_batch_size_per_gpu": 1
}
```
```
Traceback (most recent call last):
  File "finetune.py", line 88, in <module>
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.bfloat16)
  File "/usr/local/lib/python3.10/dist-packages/transformers/modeling_utils.py", line 3085, in from_pretrained
    model = cls(config, *model_args, **model_kwargs)
  File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/zero/partition_parameters.py", line 459, in wrapper
    self._post_init_method(module)
  File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/zero/partition_parameters.py", line 1004, in _post_init_method
    param.partition()
  File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/zero/partition_parameters.py", line 1326, in _partition
    self._partition_param(param, has_been_updated=has_been_updated)
  File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/zero/partition_parameters.py", line 1419, in _partition_param
    partitioned_tensor = torch.empty(partition_size, dtype=param.dtype, device=self.local_device)
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.25 GiB (GPU 0; 79.15 GiB total capacity; 76.02 GiB already allocated; 1.02 GiB free; 77.31 GiB reserved in total by PyTorch)
```

**Expected behavior**
Partitions of offloaded parameters should be allocated in (pinned) CPU memory directly.

**Screenshots**
`nvidia-smi` during `from_pretrained`: GPU 0 at 78 GB, GPUs 1-7 at 9 GB each.

**System info**
 - 8x A100 80GB, 1 TB host RAM
 - DeepSpeed 0.12.2, torch 2.1.0, transformers 4.35.0, accelerate 0.24.1
""",
     "oliviersc", "2023-11-09T10:14:26Z", "2024-01-17T23:58:40Z",
     ["bug", "training"],
     comments=[
         C("tjruwase", "2023-11-10T18:31:11Z",
           "@oliviersc, is it always GPU 0 that grows? That suggests the full tensors are first created on "
           "`cuda:0` (the default device) and only then partitioned."),
         C("oliviersc", "2023-11-13T09:02:57Z",
           "Yes, always GPU 0. Setting `CUDA_VISIBLE_DEVICES` per process does not change it since the "
           "accelerate launcher sets `LOCAL_RANK` correctly..."),
         C("tohtana", "2023-12-05T04:40:22Z",
           "There are two problems: (1) the partition buffer is allocated on `local_device` and then moved "
           "to CPU, so for a moment each partition exists twice; (2) the padding path allocates on the "
           "default CUDA device. #4701 allocates the partition where it will live and copies from the "
           "flattened view without an intermediate."),
         C("oliviersc", "2023-12-07T15:20:49Z",
           "With #4701 the peak during `from_pretrained` is 3.1 GB per GPU. Training runs."),
         C("github-actions", "2024-01-10T00:31:02Z",
           "This issue has been automatically marked as stale because it has not had recent activity."),
         C("tohtana", "2024-01-17T23:58:38Z", "Merged #4701, closing."),
     ],
     fixes=[fix(4701, "ZeRO-3: allocate offloaded partitions directly on the offload device",
                "Avoid materialising a parameter partition on the accelerator when `offload_param` is set:\n\n"
                "- allocate the partition in (pinned) CPU memory and copy into it,\n"
                "- pad on the same device instead of the default CUDA device,\n"
                "- free the full tensor before moving on to the next parameter.\n\n"
                "Peak GPU memory while building a 30B model goes from 76 GB to 3 GB.\n\nFixes #4650",
                "2024-01-17T23:41:15Z",
                F("deepspeed/runtime/zero/partition_parameters.py",
                  (1398, "def _partition_param(self, param, buffer=None, has_been_updated=False):", """
             tensor_size = self._aligned_size(param)
             partition_size = tensor_size // self.num_partitions
             if param.ds_tensor is None:
-                final_location = None
-                if self.remote_device == OffloadDeviceEnum.nvme and self.param_swapper.swappable_tensor(
-                        numel=partition_size):
-                    final_location = OffloadDeviceEnum.nvme
-                    buffer = self.param_swapper.get_buffer(param, partition_size)
-                    partitioned_tensor = torch.empty(0, dtype=param.dtype, device=buffer.device)
-                    partitioned_tensor.data = buffer.data
-                    print_rank_0(f"ID {param.ds_id} Initializing partition for the first time for nvme offload.")
-
-                else:
-                    partitioned_tensor = torch.empty(partition_size, dtype=param.dtype, device=self.local_device)
-                    if self.pin_memory:
-                        partitioned_tensor = get_accelerator().pin_memory(partitioned_tensor)
+                final_location, partitioned_tensor = self._allocate_partition(param, partition_size)
 
                 partitioned_tensor.requires_grad = False
                 param.ds_tensor = partitioned_tensor
"""),
                  (1428, "def _partition_param(self, param, buffer=None, has_been_updated=False):", """
             start = partition_size * self.get_partition_rank()
             end = start + partition_size
 
-            one_dim_param = param.contiguous().view(-1)
+            one_dim_param = param.data.view(-1)
 
             if start < param.ds_numel and end <= param.ds_numel:
                 src_tensor = one_dim_param.narrow(0, start, partition_size)
 
-                param.ds_tensor.copy_(src_tensor)
+                param.ds_tensor.copy_(src_tensor, non_blocking=self.pin_memory)
 
             else:
                 if start < param.ds_numel:
                     elements_to_copy = param.ds_numel - start
-                    param.ds_tensor.narrow(0, 0, elements_to_copy).copy_(one_dim_param.narrow(0, start, elements_to_copy))
+                    param.ds_tensor.narrow(0, 0, elements_to_copy).copy_(one_dim_param.narrow(0, start, elements_to_copy),
+                                                                         non_blocking=self.pin_memory)
+                    param.ds_tensor.narrow(0, elements_to_copy, partition_size - elements_to_copy).zero_()
 
             see_memory_usage(f'After partitioning param {param.ds_id} {param.shape}', force=False)
             if param.ds_tensor.final_location == OffloadDeviceEnum.nvme:
"""),
                  (1466, "def _partition_param(self, param, buffer=None, has_been_updated=False):", """
                 param.ds_tensor.final_location = final_location
             print_rank_0(f"ID {param.ds_id} partitioned type {param.dtype} dev {param.device} shape {param.shape}")
 
+    def _allocate_partition(self, param, partition_size):
+        \"\"\"Allocate the partition of `param` where it will live: NVMe swap
+        buffer, (pinned) CPU memory, or the local accelerator.\"\"\"
+        if self.remote_device == OffloadDeviceEnum.nvme and self.param_swapper.swappable_tensor(numel=partition_size):
+            buffer = self.param_swapper.get_buffer(param, partition_size)
+            partitioned_tensor = torch.empty(0, dtype=param.dtype, device=buffer.device)
+            partitioned_tensor.data = buffer.data
+            return OffloadDeviceEnum.nvme, partitioned_tensor
+
+        device = OffloadDeviceEnum.cpu if self.remote_device == OffloadDeviceEnum.cpu else self.local_device
+        partitioned_tensor = torch.empty(partition_size, dtype=param.dtype, device=device)
+        if device == OffloadDeviceEnum.cpu and self.pin_memory:
+            partitioned_tensor = get_accelerator().pin_memory(partitioned_tensor)
+        return None, partitioned_tensor
+
     def _param_status(self, param):
         if param.ds_tensor is not None:
             print_rank_0(
""")))])
code(DS, 4650,
     {"symptom": "memory_issue", "root_cause": "allocation_strategy",
      "fix_pattern": "algorithm_rewrite", "stage": "memory", "phase": "training"})


item(DS, 4903,
     "[BUG] init_inference with tp_size=2 produces different (wrong) text than tp_size=1 for GPT-NeoX",
     """**Describe the bug**
Greedy generation with `deepspeed.init_inference(..., tensor_parallel={"tp_size": 2})` on \
`EleutherAI/gpt-neox-20b` gives text that is different from, and clearly worse than, the same model \
on one GPU (or with `tp_size: 1`). Both TP ranks print the same (wrong) text. Llama-2-13B, which \
has no bias in its projections, is fine.

**To Reproduce**
```python
import os, torch, deepspeed
from transformers import AutoTokenizer, AutoModelForCausalLM

name = "EleutherAI/gpt-neox-20b"
tok = AutoTokenizer.from_pretrained(name)
model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float16)
engine = deepspeed.init_inference(model,
                                  tensor_parallel={"tp_size": int(os.environ["WORLD_SIZE"])},
                                  dtype=torch.float16,
                                  replace_with_kernel_inject=False)
ids = tok("The capital of France is", return_tensors="pt").input_ids.cuda()
out = engine.module.generate(ids, max_new_tokens=20, do_sample=False)
print(tok.decode(out[0]))
```
`deepspeed --num_gpus 1 gen.py`:
```
The capital of France is Paris, and the capital of Germany is Berlin. The capital of Italy is Rome
```
`deepspeed --num_gpus 2 gen.py` (both ranks):
```
The capital of France is the the the, and and and of of of the the the the the
```

**Expected behavior**
Same greedy output up to fp16 noise.

**System info**
 - 2x A6000 48GB, Ubuntu 20.04
 - deepspeed 0.12.6, torch 2.1.2+cu121, transformers 4.36.2

**Additional context**
Comparing the hidden states after layer 0, the difference between tp=1 and tp=2 is exactly the \
`dense` bias of the attention output, i.e. the bias seems to be added twice.
""",
     "hanna-k", "2024-01-05T20:17:39Z", "2024-02-02T01:12:26Z",
     ["bug", "inference"],
     comments=[
         C("delock", "2024-01-08T07:55:10Z",
           "Thanks for the analysis. In AutoTP the row-parallel `LinearAllreduce` adds the bias before the "
           "all-reduce, so with N ranks it ends up N times in the sum. Models without bias don't see it."),
         C("hanna-k", "2024-01-08T11:03:27Z", "That matches: with `tp_size=4` it's even worse."),
         C("delock", "2024-01-30T09:41:54Z", "#4952 adds the bias after the all-reduce. Could you verify?"),
         C("hanna-k", "2024-01-31T18:26:02Z", "Verified on 2 and 4 GPUs, output matches 1 GPU now. Thanks!"),
     ],
     fixes=[fix(4952, "AutoTP: add the bias of LinearAllreduce after the all-reduce",
                "Row-parallel linear layers added their (replicated) bias on every rank before "
                "summing the partial outputs, so the bias was counted `tp_size` times.\n\nFixes #4903",
                "2024-02-02T01:12:20Z",
                F("deepspeed/module_inject/layers.py",
                  (18, "class LinearAllreduce(nn.Module):", """
 
     def forward(self, input):
         output = torch.matmul(input, self.weight.transpose(-1, -2))
-        if self.bias is not None:
-            output += self.bias
         if self.mp_group is not None:
             dist.inference_all_reduce(output, group=self.mp_group)
+        # the bias is replicated on all ranks: add it once, after the sum
+        if self.bias is not None:
+            output += self.bias
         return output
 
 
""")))])
code(DS, 4903,
     {"symptom": "cross_device_inconsistency", "root_cause": "distributed_tensor",
      "fix_pattern": "algorithm_rewrite", "stage": "computation", "phase": "inference"},
     {"fix_pattern": "other"})


item(DS, 5012,
     "[BUG] ds_to_universal.py fails with KeyError: 'param_slice_mappings' on a BF16 + pipeline checkpoint",
     """**Describe the bug**
Converting a checkpoint written by a Megatron-DeepSpeed run (TP=2, PP=4, ZeRO-1 with the BF16 \
optimizer) to the universal format fails immediately:

```
$ python deepspeed/checkpoint/ds_to_universal.py --input_folder ckpt/global_step12000 --output_folder ckpt/global_step12000_universal
args = Namespace(input_folder='ckpt/global_step12000', output_folder='ckpt/global_step12000_universal', num_extract_workers=4, num_merge_workers=2, keep_temp_folder=False, strict=True)
Convert DeepSpeed Checkpoint to Universal Checkpoint
Converting DeepSpeed checkpoint in ckpt/global_step12000 to Universal checkpoint in ckpt/global_step12000_universal
*** 1. Extracting ZeRO fragments
  0%|                                                    | 0/8 [00:00<?, ?it/s]
multiprocessing.pool.RemoteTraceback:
\"\"\"
Traceback (most recent call last):
  File "/usr/lib/python3.10/multiprocessing/pool.py", line 125, in worker
    result = (True, func(*args, **kwds))
  File "/workspace/DeepSpeed/deepspeed/checkpoint/ds_to_universal.py", line 114, in extract_zero_shards
    param_slice_mappings = optim_sd[PARAM_SLICE_MAPPINGS]
KeyError: 'param_slice_mappings'
\"\"\"
```

The optimizer state files written by the BF16 optimizer don't seem to contain \
`param_slice_mappings` at all, while those of the ZeRO-1/2 optimizer do.

**To Reproduce**
1. Train Megatron-DeepSpeed GPT 1.3B with `--bf16 --zero-stage 1 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 4` for a few steps and save.
2. Run `ds_to_universal.py` on the checkpoint folder.

**Expected behavior**
Universal checkpoint conversion supports the BF16 optimizer, which is what pipeline parallel runs use.

**System info**
 - DeepSpeed master @ 3e94f8c, torch 2.1.2
 - 4 nodes x 8 A100 40GB, NCCL 2.18.6
""",
     "lucas-bm", "2024-01-29T15:40:12Z", "2024-02-21T19:22:47Z",
     ["bug", "training"],
     comments=[
         C("tjruwase", "2024-01-30T01:02:50Z",
           "Right, the BF16 optimizer keeps the mappings (one dict per param group) but never saves "
           "them. We'll save them and make the converter read both layouts. Checkpoints written before "
           "the fix need to be loaded and saved once more with the fixed version."),
         C("lucas-bm", "2024-02-01T10:12:33Z",
           "Also note that with PP the layer files of the last stage contain the tied embedding again. "
           "Not sure if the converter needs to care."),
         C("tjruwase", "2024-02-14T22:45:07Z",
           "#5030 covers both the missing key and the tied embedding of the last stage. Would you try it?"),
         C("lucas-bm", "2024-02-16T08:19:51Z",
           "After re-saving with #5030 the conversion succeeds, and resuming from the universal "
           "checkpoint at TP=1 PP=8 gives the same loss as before (2.871 vs 2.871 at step 12001)."),
     ],
     fixes=[fix(5030, "Universal checkpoint: support the BF16 optimizer and tied embeddings",
                "- the BF16 optimizer did not save its `param_slice_mappings`; save them per param group "
                "and merged under the common key, and read both layouts in `ds_to_universal.py`\n"
                "- skip the duplicated tied embedding of the last pipeline stage when merging\n\n"
                "Fixes #5012",
                "2024-02-21T19:22:40Z",
                F("deepspeed/checkpoint/constants.py",
                  (16, "", """
 OPTIMIZER_STATE_DICT = "optimizer_state_dict"
 FP32_GROUPS = 'fp32_groups'
 FP32_FLAT_GROUPS = 'fp32_flat_groups'
+BF16_PARAM_SLICE_MAPPINGS = 'bf16_param_slice_mappings'
 
 BASE_OPTIMIZER_STATE = 'base_optimizer_state'
 BASE_OPTIMIZER_STATE_STEP = 'base_optimizer_state_step'
""")),
                F("deepspeed/checkpoint/ds_to_universal.py",
                  (104, "def extract_zero_shards(dir, ds_checkpoint, indices_3D):", """
     pp_index, tp_index, dp_index = indices_3D
     sd = ds_checkpoint.get_zero_checkpoint_state(pp_index=pp_index, tp_index=tp_index, dp_index=dp_index)
 
     optim_sd = sd[OPTIMIZER_STATE_DICT]
-    param_slice_mappings = optim_sd[PARAM_SLICE_MAPPINGS]
+    param_slice_mappings = _get_param_slice_mappings(optim_sd)
+    if param_slice_mappings is None:
+        raise ValueError(f"{dir}: optimizer state of pp={pp_index} tp={tp_index} dp={dp_index} "
+                         f"has no parameter slice mappings; was it saved with zero_stage=0?")
 
     # dict
     state_groups = optim_sd[BASE_OPTIMIZER_STATE]["state"]
"""),
                  (133, "def extract_zero_shards(dir, ds_checkpoint, indices_3D):", """
                 _save_checkpoint(os.path.join(param_base_path, state_key), fragment_mapping.get_fragment(state_tensor))
 
 
+def _get_param_slice_mappings(optim_sd):
+    \"\"\"ZeRO-1/2 store one dict; the BF16 optimizer stores a list with one
+    dict per parameter group.  Return a single dict either way.\"\"\"
+    mappings = optim_sd.get(PARAM_SLICE_MAPPINGS, optim_sd.get(BF16_PARAM_SLICE_MAPPINGS))
+    if mappings is None or isinstance(mappings, dict):
+        return mappings
+    merged = {}
+    for group_mappings in mappings:
+        merged.update(group_mappings)
+    return merged
+
+
 cnt = 0
 
 
"""),
                  (171, "def _merge_zero_shards(param_base_path, state, tp_degree, slice_shape):", """
     for tp_index in range(tp_degree):
         prefix_path = os.path.join(param_base_path, str(tp_index), f"{state}")
         paths = sorted(list(glob.glob(f"{prefix_path}.*")))
+        if len(paths) == 0:
+            # tied weights of the last pipeline stage are stored with the first stage
+            continue
         shards = [torch.load(p) for p in paths]
         slice = torch.cat(shards, dim=0).reshape(slice_shape)
         slices.append(slice)
""")),
                F("deepspeed/runtime/bf16_optimizer.py",
                  (402, "def state_dict(self):", """
         state_dict[CLIP_GRAD] = self.clip_grad
         state_dict[BASE_OPTIMIZER_STATE] = self.optimizer.state_dict()
         state_dict[SINGLE_PARTITION_OF_FP32_GROUPS] = self.fp32_groups_flat_partition
         state_dict[GROUP_PADDINGS] = self.group_paddings
         state_dict[PARTITION_COUNT] = self.partition_count
         state_dict[DS_VERSION] = version
+        state_dict[BF16_PARAM_SLICE_MAPPINGS] = self._param_slice_mappings
+        state_dict[PARAM_SLICE_MAPPINGS] = self._merged_param_slice_mappings()
 
         return state_dict
 
+    def _merged_param_slice_mappings(self):
+        merged = {}
+        for group_mappings in self._param_slice_mappings:
+            merged.update(group_mappings)
+        return merged
+
     # Restore base optimizer fp32 weights from bfloat16 weights
     def _restore_from_bit16_weights(self):
         for i, group in enumerate(self.bf16_groups):
""")))])
code(DS, 5012,
     {"symptom": "crash", "root_cause": "incorrect_implementation",
      "fix_pattern": ["parameter_handling", "conditional_logic"], "stage": "fault_tolerance",
      "phase": "training"},
     {"fix_pattern": ["parameter_handling"]})


item(DS, 5240,
     "[BUG] AttributeError: module 'torch' has no attribute 'compiler' with torch 1.13 after upgrading to 0.14.0",
     """**Describe the bug**
`import deepspeed` works, but `deepspeed.initialize` (and also `init_inference`) fails right away on \
torch 1.13.1 after upgrading DeepSpeed from 0.13.5 to 0.14.0. The README still says torch >= 1.9 is supported.

```
Traceback (most recent call last):
  File "/data/jobs/serve.py", line 41, in <module>
    engine = deepspeed.init_inference(model, dtype=torch.half, replace_with_kernel_inject=True)
  File "/opt/venv/lib/python3.8/site-packages/deepspeed/__init__.py", line 342, in init_inference
    engine = InferenceEngine(model, config=ds_inference_config)
  File "/opt/venv/lib/python3.8/site-packages/deepspeed/inference/engine.py", line 160, in __init__
    self._apply_injection_policy(config)
  File "/opt/venv/lib/python3.8/site-packages/deepspeed/runtime/compiler.py", line 17, in is_compiling
    return torch.compiler.is_compiling()
AttributeError: module 'torch' has no attribute 'compiler'
```

**To Reproduce**
`pip install torch==1.13.1 deepspeed==0.14.0` and run any `init_inference` example.

**Expected behavior**
No crash on torch < 2.1; `is_compiling()` can simply return `False` there.

**System info**
 - Python 3.8, torch 1.13.1+cu117, deepspeed 0.14.0
 - 1x T4 (inference server)
""",
     "sergio-v", "2024-03-06T08:02:19Z", "2024-03-06T19:44:03Z",
     ["bug", "inference"],
     comments=[
         C("loadams", "2024-03-06T15:10:48Z", "Thanks @sergio-v, confirmed. Fix incoming in #5244."),
         C("sergio-v", "2024-03-06T19:50:12Z", "That was fast, thank you 👍"),
     ],
     fixes=[fix(5244, "compiler.is_compiling: support torch versions without torch.compiler",
                "`torch.compiler` appeared in torch 2.1. Fall back to `False` on older versions.\n\nFixes #5240",
                "2024-03-06T19:43:58Z",
                F("deepspeed/runtime/compiler.py",
                  (14, "def is_compile_supported():", """
 
 
 def is_compiling():
-    return torch.compiler.is_compiling()
+    if hasattr(torch, "compiler") and hasattr(torch.compiler, "is_compiling"):
+        return torch.compiler.is_compiling()
+    return False
 
 
 def disable(func):
""")))])
code(DS, 5240,
     {"symptom": "crash", "root_cause": "version_incompatibility",
      "fix_pattern": "version_compatibility", "stage": "initialization", "phase": "both"},
     {"phase": "inference"})


item(DS, 5388,
     "[BUG] PipelineEngine.train_batch returns a loss gradient_accumulation_steps times too small",
     """**Describe the bug**
With the pipeline engine the loss that `train_batch()` returns (and that is written to \
TensorBoard as `Train/Samples/train_loss`) is smaller than the real loss by a factor of \
`gradient_accumulation_steps`. Training itself seems fine: the gradients and the eval loss are as \
expected. It is just the number we log, but it confused us for two days because our curves no longer \
matched the non-pipeline runs.

**To Reproduce**
| config | train loss at step 100 | eval loss at step 100 |
|---|---|---|
| ZeRO-1, no PP, GAS=8 | 3.412 | 3.398 |
| PP=2, GAS=8 | 0.4265 | 3.401 |
| PP=2, GAS=1 | 3.409 | 3.399 |

`0.4265 * 8 = 3.412`.

```python
engine, _, _, _ = deepspeed.initialize(model=PipelineModule(layers=specs, num_stages=2, loss_fn=ce),
                                       config="ds_config.json", model_parameters=params)
for step in range(steps):
    loss = engine.train_batch(data_iter=it)
```

**Expected behavior**
`train_batch` returns the mean loss over the micro-batches, like the docstring says.

**System info**
 - DeepSpeed 0.14.0 (also on master), torch 2.2.1
 - 1 node, 4x A100 40GB
""",
     "tomasz-w", "2024-04-08T12:30:00Z", "2024-05-13T17:05:18Z",
     ["bug", "training"],
     comments=[
         C("tohtana", "2024-04-10T05:11:21Z",
           "Confirmed. `_aggregate_total_loss` divides by `gradient_accumulation_steps()` although the "
           "losses were already scaled for the backward pass."),
         C("tohtana", "2024-05-13T17:06:02Z", "Fixed in #5401."),
     ],
     fixes=[fix(5401, "PipelineEngine: do not scale the reported loss twice",
                "Each micro-batch loss is already divided by GAS before backward. Sum the scaled "
                "losses instead of averaging them again.\n\nFixes #5388",
                "2024-05-13T17:05:12Z",
                F("deepspeed/runtime/pipe/engine.py",
                  (546, "def _reduce_outputs(self, outputs, reduce='avg', reduce_dp=True, micro_batches=None):", """
     def _aggregate_total_loss(self):
         # Scale loss, average among DP ranks, and bcast loss to the rest of my DP group
         if self.is_last_stage():
-            loss = self._scale_loss_by_gas(self.total_loss)
+            # the micro-batch losses were already divided by the number of
+            # micro-batches in _exec_forward_pass; their sum is the mean loss
+            loss = self.total_loss
             self.dp_group_loss = loss.clone().detach()
 
             ## Average loss across all data-parallel groups
""")))])


item(DS, 5561,
     "[BUG] ZeRO-2 step time 35% slower after upgrading from 0.14.0 to 0.14.2",
     """**Describe the bug**
Same script, same config, same machine: upgrading DeepSpeed from 0.14.0 to 0.14.2 makes each step \
of our 3B model go from 412 ms to 558 ms. The profiler shows a `cudaDeviceSynchronize` after every \
gradient bucket reduce in `reduce_ipg_grads`, which kills the overlap of communication and backward.

**To Reproduce**
```json
{
  "zero_optimization": {
    "stage": 2,
    "overlap_comm": true,
    "contiguous_gradients": true,
    "reduce_bucket_size": 5e8
  },
  "fp16": {"enabled": true}
}
```

```
$ nsys stats --report cuda_api_sum prof_0142.nsys-rep | grep -i synchronize
   48.3      11823445210       1536  7697555.5  7683711.0   6822011   9171120   cudaDeviceSynchronize
$ nsys stats --report cuda_api_sum prof_0140.nsys-rep | grep -i synchronize
    0.4         93826621         12  7818885.1  7802219.5   7731092   7915010   cudaDeviceSynchronize
```

**Expected behavior**
No slowdown in a patch release.

**System info**
 - DeepSpeed 0.14.2 vs 0.14.0, torch 2.3.0+cu121
 - 8x H100 SXM, NVLink
""",
     "akira-t", "2024-05-23T06:44:31Z", "2024-05-29T21:17:42Z",
     ["bug", "training"],
     comments=[
         C("tjruwase", "2024-05-23T16:03:57Z",
           "Thanks for the profiles. A debug `synchronize()` slipped into #5432. Reverting that line."),
         C("akira-t", "2024-05-29T22:00:14Z", "Back to 410 ms with master. Thanks!"),
     ],
     fixes=[fix(5570, "ZeRO-2: remove stray device synchronize in reduce_ipg_grads",
                "Fixes #5561 (regression from #5432).",
                "2024-05-29T21:17:38Z",
                F("deepspeed/runtime/zero/stage_1_and_2.py",
                  (1311, "def reduce_ipg_grads(self):", """
                     self.average_tensor(extra_large_grad_reduc.view(-1))
                 else:
                     self.average_tensor(self.ipg_buffer[self.ipg_index].narrow(0, 0, self.elements_in_ipg_bucket))
-                get_accelerator().synchronize()
             else:
                 self.buffered_reduce_fallback(None,
                                               self.grads_in_ipg_bucket,
""")))])
code(DS, 5561,
     {"symptom": "performance_degradation", "root_cause": "concurrency",
      "fix_pattern": "other", "stage": "communication", "phase": "training"})


item(DS, 5733,
     "[BUG] offload_optimizer device \"CPU\" (upper case) rejected: ValidationError after pydantic v2 migration",
     """**Describe the bug**
Our configs (and several public fine-tuning recipes) spell the offload device in upper case. With \
0.14.4 this fails in `deepspeed.initialize`:

```
Traceback (most recent call last):
  File "sft.py", line 150, in <module>
    trainer.train()
  File "/usr/local/lib/python3.11/site-packages/transformers/trainer.py", line 1885, in train
    return inner_training_loop(
  File "/usr/local/lib/python3.11/site-packages/transformers/trainer.py", line 2036, in _inner_training_loop
    model, self.optimizer, self.lr_scheduler = deepspeed_init(self, num_training_steps=max_steps)
  File "/usr/local/lib/python3.11/site-packages/deepspeed/runtime/config.py", line 807, in _initialize_params
    self.zero_config = get_zero_config(param_dict)
  File "/usr/local/lib/python3.11/site-packages/deepspeed/runtime/zero/config.py", line 26, in get_zero_config
    return DeepSpeedZeroConfig(**zero_config_dict)
pydantic_core._pydantic_core.ValidationError: 1 validation error for DeepSpeedZeroConfig
offload_optimizer.device
  Input should be 'none', 'cpu' or 'nvme' [type=enum, input_value='CPU', input_type=str]
```

With 0.14.0 the same config worked.

**To Reproduce**
```json
"zero_optimization": {
  "stage": 2,
  "offload_optimizer": {"device": "CPU", "pin_memory": true}
}
```

**Expected behavior**
Accept the device case-insensitively, as before.
""",
     "fede-rossi", "2024-07-04T10:22:09Z", "2024-07-10T14:51:30Z",
     ["bug", "training"],
     comments=[
         C("loadams", "2024-07-05T17:34:40Z",
           "In pydantic v1 our enum validator lower-cased the value; v2 checks the enum before our "
           "validator runs. We'll add a `mode=\"before\"` validator."),
     ],
     fixes=[fix(5741, "Offload config: accept device names case-insensitively again",
                "Restore the pydantic v1 behaviour.\n\nFixes #5733",
                "2024-07-10T14:51:25Z",
                F("deepspeed/runtime/zero/offload_config.py",
                  (63, "class DeepSpeedZeroOffloadOptimizerConfig(DeepSpeedConfigModel):", """
     device: OffloadDeviceEnum = "none"
     \"\"\" Device memory to offload optimizer state. Supported options are `cpu` and `nvme`. \"\"\"
 
+    @field_validator("device", mode="before")
+    def lower_case_device(cls, value):
+        return value.lower() if isinstance(value, str) else value
+
     nvme_path: Optional[Path] = None
     \"\"\" Filesystem path for NVMe device for optimizer state offloading. \"\"\"
 
""")))])
code(DS, 5733,
     {"symptom": "setup_failure", "root_cause": "configuration_error",
      "fix_pattern": "parameter_handling", "stage": "initialization", "phase": "training"},
     {"symptom": "crash", "root_cause": "dependent_module"})


item(DS, 5890,
     "[BUG] ZeRO-3 hangs nondeterministically in reduce_scatter when some parameters are kept in fp32 (bf16 training)",
     """**Describe the bug**
We fine-tune a MoE model in bf16 with ZeRO-3. The router weights are kept in fp32 \
(`_keep_in_fp32_modules = ["gate"]`), so the gradient buckets contain both bf16 and fp32 \
gradients. About two launches out of three hang in the first backward pass; the others train \
normally to the end. When it hangs, all 16 ranks sit in `reduce_scatter_coalesced` and the NCCL \
watchdog fires after 30 minutes:

```
[rank9]:[E ProcessGroupNCCL.cpp:563] [Rank 9] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=212, OpType=_REDUCE_SCATTER_BASE, NumelIn=50331648, NumelOut=3145728, Timeout(ms)=1800000) ran for 1800093 milliseconds before timing out.
[rank2]:[E ProcessGroupNCCL.cpp:563] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=212, OpType=_REDUCE_SCATTER_BASE, NumelIn=1048576, NumelOut=65536, Timeout(ms)=1800000) ran for 1800101 milliseconds before timing out.
```

Note the different `NumelIn` for the **same** `SeqNum` on rank 9 and rank 2: the ranks are not \
reducing the same buffer.

**To Reproduce**
Steps to reproduce the behavior:
1. Any model where a few modules stay in fp32 under `bf16.enabled: true`.
2. ZeRO-3, 2 nodes x 8 GPUs (it happens on one node too, but less often).
3. Launch a few times; `for i in 1 2 3 4 5; do deepspeed --hostfile hf train.py ...; done`

```python
# minimal: two linear layers, one kept in fp32
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4096, 4096)
        self.gate = torch.nn.Linear(4096, 16)

    def forward(self, x):
        return self.gate(self.proj(x).float()).sum()
```

**Expected behavior**
Deterministic, hang-free reduction regardless of the dtypes in a bucket.

**ds_report output**
```
DeepSpeed C++/CUDA extension op report
--------------------------------------------------
NOTE: Ops not installed will be just-in-time (JIT) compiled at
      runtime if needed. Op compatibility means that your system
      meet the required dependencies to JIT install the op.
--------------------------------------------------
JIT compiled ops requires ninja
ninja .................. [OKAY]
--------------------------------------------------
op name ................ installed .. compatible
--------------------------------------------------
async_io ............... [NO] ....... [OKAY]
fused_adam ............. [NO] ....... [OKAY]
cpu_adam ............... [NO] ....... [OKAY]
...
DeepSpeed general environment info:
torch version .................... 2.4.0+cu124
deepspeed info ................... 0.14.4, unknown, unknown
torch cuda version ............... 12.4
nccl version ..................... 2.20.5
```

**System info**
 - 2 nodes, 8x H100 80GB each, RoCE
 - Python 3.11

**Launcher context**
`deepspeed` launcher, hostfile with `slots=8`.
""",
     "jpark-moe", "2024-08-02T07:35:49Z", "2024-10-15T20:03:11Z",
     ["bug", "training"],
     comments=[
         C("tjruwase", "2024-08-02T19:20:05Z",
           "@jpark-moe, thanks. Does it still hang with `\"reduce_scatter\": false`?"),
         C("jpark-moe", "2024-08-05T02:14:36Z",
           "With `reduce_scatter: false` it never hangs (20 launches) but is ~12% slower."),
         C("GuanhuaWang", "2024-08-21T23:48:12Z",
           "I can reproduce on 4 GPUs with the small model, roughly 1 in 3 launches. "
           "`reduce_scatter_coalesced` iterates over `{t.dtype for t in tensors}`. A `torch.dtype` hashes "
           "by object address, and with ASLR the order of a set of dtypes is not the same in every "
           "process. So rank 2 reduces the bf16 bucket first while rank 9 reduces the fp32 bucket first."),
         C("stas00", "2024-08-22T00:30:17Z",
           "Nasty one. Could the coalesced path also verify that all ranks agree on the bucket layout, "
           "at least behind an env var? Would have saved days here."),
         C("GuanhuaWang", "2024-09-03T18:05:40Z",
           "Draft in #5912: deterministic dtype order, a preallocated packed buffer instead of `torch.cat` "
           "(saves one copy), and a `DS_CHECK_COALESCED=1` consistency check that raises instead of "
           "hanging. Plus tests with mixed dtypes and uneven sizes."),
         C("jpark-moe", "2024-09-10T09:27:58Z",
           "Tested #5912: 30 launches on 16 GPUs, no hang. Throughput is ~3% better than before."),
         C("tjruwase", "2024-10-15T20:03:09Z", "Merged. Thanks all for the patience and the testing."),
     ],
     fixes=[fix(5912, "Make reduce_scatter_coalesced deterministic across ranks for mixed-dtype buckets",
                "`reduce_scatter_coalesced` issued one collective per dtype, iterating over a `set` of "
                "dtypes. `torch.dtype` hashes by address, so the iteration order can differ between "
                "processes and ranks then reduce different buffers: a hang or, worse, silently mixed "
                "gradients.\n\n"
                "This PR\n"
                "- groups tensors into per-dtype buckets in a fixed order (by dtype name),\n"
                "- packs each bucket into one preallocated buffer instead of `torch.cat` of slices,\n"
                "- adds `DS_CHECK_COALESCED=1`, which compares the bucket layout on all ranks before "
                "communicating and raises a `RuntimeError` naming the rank that differs,\n"
                "- keeps fp32 gradients of keep-in-fp32 modules in fp32 in stage 3,\n"
                "- adds unit tests for mixed dtypes, uneven sizes and the consistency check.\n\n"
                "Fixes #5890",
                "2024-10-15T19:58:32Z",
                F("deepspeed/runtime/comm/coalesced_collectives.py",
                  (7, "", """
 batched collective operations for overhead amortization and better
 bandwidth utilization
 \"\"\"
 
 import math
+import os
 from typing import List
 import torch
 from torch import Tensor
"""),
                  (24, "", """
 from deepspeed.utils import instrument_w_nvtx
 from deepspeed.accelerator import get_accelerator
 
+# DS_CHECK_COALESCED=1: compare the bucket layout on all ranks before every
+# coalesced reduce-scatter (costs two small all-reduces per call)
+_CHECK_BUCKETS = os.environ.get("DS_CHECK_COALESCED", "0") == "1"
+
+# dtype codes for the layout fingerprint; any other dtype maps to 99
+_DTYPE_CODES = {torch.float32: 1, torch.float16: 2, torch.bfloat16: 3, torch.float64: 4}
+_MAX_BUCKETS = 4
+
 
 def _torch_reduce_scatter_fn(input_tensor: Tensor, output_tensor: Tensor, group=None, async_op=False, prof=False):
     return instrument_w_nvtx(dist.reduce_scatter_fn)(output_tensor, input_tensor, group=group, async_op=False)
"""),
                  (96, "def all_to_all_quant_reduce(tensors: List[Tensor], groups: {}) -> List[Tensor]:", """
     return output_lst
 
 
-@instrument_w_nvtx
-@torch.no_grad()
-def reduce_scatter_coalesced(tensors: List[Tensor], group: ProcessGroup = None) -> List[Tensor]:
-    \"\"\"Reduce-scatter a list of tensors, one collective per dtype.\"\"\"
-    rank = dist.get_rank(group)
-    world_size = dist.get_world_size(group)
-
-    outputs: List[Tensor] = [None] * len(tensors)
-    for dtype in {t.dtype for t in tensors}:
-        indices = [i for i, t in enumerate(tensors) if t.dtype == dtype]
-        chunk_sizes = [math.ceil(tensors[i].numel() / world_size) for i in indices]
-
-        pieces = []
-        for r in range(world_size):
-            for i, chunk in zip(indices, chunk_sizes):
-                flat = tensors[i].view(-1)
-                start = min(r * chunk, flat.numel())
-                end = min(start + chunk, flat.numel())
-                pieces.append(flat[start:end])
-                if end - start < chunk:
-                    pieces.append(torch.empty(chunk - (end - start), dtype=dtype, device=flat.device))
-
-        if len(pieces) == world_size and pieces[0].numel() * world_size == tensors[indices[0]].numel():
-            # a single tensor that needs no padding: reduce it in place
-            flat_buffer = tensors[indices[0]].view(-1)
-        else:
-            flat_buffer = instrument_w_nvtx(torch.cat)(pieces)
-        flat_buffer.div_(world_size)
-        per_rank = torch.chunk(flat_buffer, world_size)
-
-        _torch_reduce_scatter_fn(flat_buffer, per_rank[rank], group=group)
-
-        offset = 0
-        for i, chunk in zip(indices, chunk_sizes):
-            n = max(0, min(chunk, tensors[i].numel() - rank * chunk))
-            outputs[i] = per_rank[rank].narrow(0, offset, n)
-            offset += chunk
-    return outputs
+class _Bucket:
+    \"\"\"The tensors of one dtype, reduce-scattered with one collective.
+
+    Every tensor is cut into `world_size` chunks of `ceil(numel / world_size)`
+    elements (the last chunk padded with zeros).  Rank r receives the r-th
+    chunk of every tensor, so the packed buffer holds, rank after rank, one
+    partition of `partition_numel` elements per rank.
+    \"\"\"
+
+    def __init__(self, dtype: torch.dtype, world_size: int):
+        self.dtype = dtype
+        self.world_size = world_size
+        self.indices: List[int] = []
+        self.chunk_sizes: List[int] = []
+
+    def add(self, index: int, tensor: Tensor) -> None:
+        self.indices.append(index)
+        self.chunk_sizes.append(math.ceil(tensor.numel() / self.world_size))
+
+    @property
+    def partition_numel(self) -> int:
+        return sum(self.chunk_sizes)
+
+
+def _bucket_dtype_order(tensors: List[Tensor]) -> List[torch.dtype]:
+    \"\"\"The dtypes of `tensors`, in an order that is the same on every rank.
+
+    Iterating over a set of dtypes is not enough: torch.dtype hashes by
+    address, so two processes may visit the dtypes in different orders and
+    then issue their collectives in different orders.
+    \"\"\"
+    return sorted({t.dtype for t in tensors}, key=str)
+
+
+def _make_buckets(tensors: List[Tensor], world_size: int) -> List[_Bucket]:
+    buckets = {dtype: _Bucket(dtype, world_size) for dtype in _bucket_dtype_order(tensors)}
+    for i, t in enumerate(tensors):
+        buckets[t.dtype].add(i, t)
+    return list(buckets.values())
+
+
+def _bucket_fingerprint(buckets: List[_Bucket]) -> List[int]:
+    \"\"\"Fixed-length integers describing the bucket layout; equal on all ranks
+    exactly when the ranks are about to issue matching collectives.\"\"\"
+    codes = [0] * (1 + 2 * _MAX_BUCKETS)
+    codes[0] = len(buckets)
+    for k, bucket in enumerate(buckets[:_MAX_BUCKETS]):
+        codes[1 + 2 * k] = _DTYPE_CODES.get(bucket.dtype, 99)
+        codes[2 + 2 * k] = bucket.partition_numel
+    return codes
+
+
+def _check_buckets_agree(buckets: List[_Bucket], group: ProcessGroup) -> None:
+    device = get_accelerator().current_device_name()
+    local = torch.tensor(_bucket_fingerprint(buckets), dtype=torch.int64, device=device)
+    lowest, highest = local.clone(), local.clone()
+    dist.all_reduce(lowest, op=dist.ReduceOp.MIN, group=group)
+    dist.all_reduce(highest, op=dist.ReduceOp.MAX, group=group)
+    if not torch.equal(lowest, highest):
+        raise RuntimeError(f"reduce_scatter_coalesced: ranks disagree on the bucket layout: rank "
+                           f"{dist.get_rank(group)} has {local.tolist()}, the group ranges from "
+                           f"{lowest.tolist()} to {highest.tolist()}")
+
+
+def _pack(tensors: List[Tensor], bucket: _Bucket) -> Tensor:
+    \"\"\"Lay out the chunks of the bucket's tensors rank after rank in one buffer.\"\"\"
+    world_size = bucket.world_size
+    first = tensors[bucket.indices[0]]
+    if len(bucket.indices) == 1 and first.numel() % world_size == 0:
+        # a single tensor that needs no padding: reduce it in place
+        return first.view(-1)
+
+    flat_buffer = torch.empty(bucket.partition_numel * world_size, dtype=bucket.dtype, device=first.device)
+    per_rank = flat_buffer.view(world_size, bucket.partition_numel)
+    offset = 0
+    for i, chunk in zip(bucket.indices, bucket.chunk_sizes):
+        flat = tensors[i].view(-1)
+        for r in range(world_size):
+            start = min(r * chunk, flat.numel())
+            end = min(start + chunk, flat.numel())
+            dst = per_rank[r].narrow(0, offset, chunk)
+            dst[:end - start].copy_(flat[start:end])
+            dst[end - start:].zero_()
+        offset += chunk
+    return flat_buffer
+
+
+def _unpack(tensors: List[Tensor], bucket: _Bucket, partition: Tensor, rank: int):
+    \"\"\"Yield (index, view) for this rank's piece of every tensor of the bucket.\"\"\"
+    offset = 0
+    for i, chunk in zip(bucket.indices, bucket.chunk_sizes):
+        n = max(0, min(chunk, tensors[i].numel() - rank * chunk))
+        yield i, partition.narrow(0, offset, n)
+        offset += chunk
+
+
+@instrument_w_nvtx
+@torch.no_grad()
+def reduce_scatter_coalesced(tensors: List[Tensor], group: ProcessGroup = None) -> List[Tensor]:
+    \"\"\"Reduce-scatter (average) a list of tensors, one collective per dtype.
+
+    Returns this rank's partition of every input tensor, as views into a
+    buffer shared by the tensors of the same dtype.  The collectives are
+    issued in the same order on every rank.
+    \"\"\"
+    rank = dist.get_rank(group)
+    world_size = dist.get_world_size(group)
+    buckets = _make_buckets(tensors, world_size)
+    if _CHECK_BUCKETS:
+        _check_buckets_agree(buckets, group)
+
+    outputs: List[Tensor] = [None] * len(tensors)
+    for bucket in buckets:
+        flat_buffer = _pack(tensors, bucket)
+        flat_buffer.div_(world_size)
+        partition = flat_buffer.narrow(0, rank * bucket.partition_numel, bucket.partition_numel)
+        _torch_reduce_scatter_fn(flat_buffer, partition, group=group)
+        for i, piece in _unpack(tensors, bucket, partition, rank):
+            outputs[i] = piece
+    return outputs
""")),
                F("deepspeed/runtime/zero/stage3.py",
                  (1361, "def __avg_scatter_grads(self, params_to_reduce: List[Parameter]) -> List[Tensor]:", """
         \"\"\"average gradients and scatter partitions across ranks\"\"\"
 
         full_grads_for_rank = [p.grad for p in params_to_reduce]
         if self.communication_data_type != self.dtype:
-            full_grads_for_rank = [g.to(self.communication_data_type) for g in full_grads_for_rank]
+            # cast only the gradients in the model dtype; gradients of modules kept
+            # in fp32 stay fp32 and are reduced in a bucket of their own
+            full_grads_for_rank = [
+                g.to(self.communication_data_type) if g.dtype == self.dtype else g for g in full_grads_for_rank
+            ]
 
         if self.postscale_gradients and self.gradient_predivide_factor != 1.0:
             full_grads_for_rank = [g.mul(self.gradient_predivide_factor) for g in full_grads_for_rank]
""")),
                F("tests/unit/runtime/comm/test_coalesced_collectives_dtypes.py", (0, "", """
+# Copyright (c) Microsoft Corporation.
+# SPDX-License-Identifier: Apache-2.0
+
+# DeepSpeed Team
+\"\"\"reduce_scatter_coalesced with buckets of several dtypes and uneven sizes.\"\"\"
+
+import pytest
+import torch
+
+import deepspeed.comm as dist
+from deepspeed.accelerator import get_accelerator
+from deepspeed.runtime.comm import coalesced_collectives as cc
+from deepspeed.runtime.comm.coalesced_collectives import reduce_scatter_coalesced
+
+from unit.common import DistributedTest
+
+
+def _reference_partition(tensor, rank, world_size):
+    \"\"\"This rank's chunk of the average of `tensor` over all ranks, computed
+    without the coalesced path.  Every rank holds `tensor * (r + 1)`.\"\"\"
+    scale = sum(r + 1 for r in range(world_size)) / world_size
+    flat = tensor.view(-1).float() * scale
+    chunk = (flat.numel() + world_size - 1) // world_size
+    return flat[rank * chunk:(rank + 1) * chunk]
+
+
+def _make_inputs(shapes_and_dtypes, rank):
+    device = get_accelerator().current_device_name()
+    gen = torch.Generator().manual_seed(1234)
+    base = [torch.randn(shape, generator=gen).to(dtype) for shape, dtype in shapes_and_dtypes]
+    return base, [(t * (rank + 1)).to(device) for t in base]
+
+
+class TestReduceScatterMixedDtypes(DistributedTest):
+    world_size = 4
+
+    @pytest.mark.parametrize("dtypes", [
+        (torch.bfloat16, torch.float32),
+        (torch.float32, torch.bfloat16, torch.float16),
+        (torch.float16, torch.float16),
+    ])
+    def test_matches_reference(self, dtypes):
+        if torch.bfloat16 in dtypes and not get_accelerator().is_bf16_supported():
+            pytest.skip("bf16 is not supported on this accelerator")
+        rank, world_size = dist.get_rank(), dist.get_world_size()
+        shapes = [(64, 33), (7, ), (128, ), (3, 5, 2)]
+        spec = [(shape, dtypes[k % len(dtypes)]) for k, shape in enumerate(shapes)]
+        base, inputs = _make_inputs(spec, rank)
+
+        outputs = reduce_scatter_coalesced(inputs)
+
+        assert len(outputs) == len(inputs)
+        for t, out, (_, dtype) in zip(base, outputs, spec):
+            assert out.dtype == dtype
+            expected = _reference_partition(t, rank, world_size)
+            tol = 1e-5 if dtype == torch.float32 else 2e-2
+            assert torch.allclose(out.float().cpu(), expected, rtol=tol, atol=tol)
+
+    def test_tensor_smaller_than_world_size(self):
+        rank, world_size = dist.get_rank(), dist.get_world_size()
+        base, inputs = _make_inputs([((2, ), torch.float32), ((9, ), torch.bfloat16)], rank)
+
+        outputs = reduce_scatter_coalesced(inputs)
+
+        # a 2-element tensor leaves ranks 2 and 3 with an empty partition
+        assert outputs[0].numel() == (1 if rank < 2 else 0)
+        assert outputs[1].numel() == (3 if rank < 3 else 0)
+        for t, out in zip(base, outputs):
+            expected = _reference_partition(t, rank, world_size)[:out.numel()]
+            assert torch.allclose(out.float().cpu(), expected, rtol=2e-2, atol=2e-2)
+
+    def test_single_tensor_reduced_in_place(self):
+        rank = dist.get_rank()
+        _, inputs = _make_inputs([((16, 8), torch.float32)], rank)
+        storage = inputs[0].untyped_storage().data_ptr()
+
+        outputs = reduce_scatter_coalesced(inputs)
+
+        assert outputs[0].untyped_storage().data_ptr() == storage
+
+
+class TestBucketOrder:
+
+    def test_order_does_not_depend_on_input_order(self):
+        a = [torch.zeros(4, dtype=torch.float32), torch.zeros(4, dtype=torch.bfloat16)]
+        b = list(reversed(a))
+        assert cc._bucket_dtype_order(a) == cc._bucket_dtype_order(b)
+
+    def test_fingerprint_has_fixed_length(self):
+        one = cc._make_buckets([torch.zeros(10)], world_size=4)
+        three = cc._make_buckets([torch.zeros(10), torch.zeros(3).half(), torch.zeros(5).bfloat16()], world_size=4)
+        assert len(cc._bucket_fingerprint(one)) == len(cc._bucket_fingerprint(three))
+
+    def test_fingerprint_layout(self):
+        buckets = cc._make_buckets([torch.zeros(10), torch.zeros(6).bfloat16(), torch.zeros(1)], world_size=4)
+        # bfloat16 sorts before float32; chunks are ceil(6/4)=2, ceil(10/4)+ceil(1/4)=3+1
+        assert cc._bucket_fingerprint(buckets)[:5] == [2, 3, 2, 1, 4]
+
+
+class TestCheckBucketsAgree(DistributedTest):
+    world_size = 2
+
+    def test_mismatch_raises(self, monkeypatch):
+        monkeypatch.setattr(cc, "_CHECK_BUCKETS", True)
+        rank = dist.get_rank()
+        device = get_accelerator().current_device_name()
+        # rank 1 has one element more: without the check this would hang
+        inputs = [torch.ones(8 + rank, device=device)]
+        with pytest.raises(RuntimeError, match="disagree on the bucket layout"):
+            reduce_scatter_coalesced(inputs)
+
+    def test_match_passes(self, monkeypatch):
+        monkeypatch.setattr(cc, "_CHECK_BUCKETS", True)
+        device = get_accelerator().current_device_name()
+        inputs = [torch.ones(8, device=device), torch.ones(3, device=device, dtype=torch.float16)]
+        outputs = reduce_scatter_coalesced(inputs)
+        assert outputs[0].numel() == 4
"""), new=True))])
code(DS, 5890,
     {"symptom": "hang", "root_cause": "distributed_communication",
      "fix_pattern": ["algorithm_rewrite", "distributed_tuning"], "stage": "communication",
      "phase": "training"},
     {"root_cause": "concurrency", "fix_pattern": ["algorithm_rewrite"]})


item(DS, 6011,
     "[BUG] deepspeed launcher: --num_gpus overrides --include and the job lands on GPUs 0-1 that belong to someone else",
     """**Describe the bug**
On our shared 8-GPU box I start two jobs side by side:

```bash
deepspeed --include localhost:0,1 train.py --deepspeed ds_config.json        # job A
deepspeed --include localhost:2,3 --num_gpus 2 train.py --deepspeed ds.json  # job B
```

Job B should run on GPUs 2 and 3, but the launcher prints

```
[2024-08-27 14:03:11,204] [INFO] [runner.py:568:main] cmd = /usr/bin/python3 -u -m deepspeed.launcher.launch --world_info=eyJsb2NhbGhvc3QiOiBbMCwgMV19 --master_addr=127.0.0.1 --master_port=29500 --enable_each_rank_log=None train.py --deepspeed ds.json
```

and `eyJsb2NhbGhvc3QiOiBbMCwgMV19` decodes to `{"localhost": [0, 1]}`. Job B lands on job A's GPUs, \
and job A then dies with `torch.cuda.OutOfMemoryError`.

**To Reproduce**
Any script; pass both `--include` and `--num_gpus`.

**Expected behavior**
Either `--include` wins and `--num_gpus` only checks the count, or the launcher refuses the \
combination. Silently picking other GPUs is dangerous on shared machines.

**System info**
 - DeepSpeed 0.15.0, single node, 8x L40S
""",
     "ines-m", "2024-08-27T14:20:33Z", "2024-09-30T11:08:46Z",
     ["bug", "training"],
     comments=[
         C("loadams", "2024-08-28T16:12:07Z",
           "Thanks @ines-m. `--num_gpus` rebuilds the slot list as `range(num_gpus)` after the include "
           "filter ran. #6020 keeps the first N of the *selected* slots and errors out on a real conflict."),
         C("ines-m", "2024-09-04T08:30:51Z", "#6020 works for my case, thanks."),
         C("kw-shen", "2024-09-12T10:44:19Z",
           "Since 0.15.1 `CUDA_VISIBLE_DEVICES=4,5,6,7 deepspeed --num_gpus 2 train.py` fails with\n\n"
           "```\nValueError: --num_gpus 2 conflicts with --include localhost:4,5,6,7\n```\n\n"
           "I never passed `--include`. Looks like a regression from #6020?"),
         C("loadams", "2024-09-12T17:55:38Z",
           "Yes, the launcher turns `CUDA_VISIBLE_DEVICES` into an include string before that check. "
           "Follow-up in #6098."),
         C("kw-shen", "2024-09-30T11:15:02Z", "Confirmed fixed on master."),
     ],
     fixes=[fix(6020, "launcher: --num_gpus must not replace the GPUs selected by --include",
                "`--num_gpus` used to replace every host's slots with `range(num_gpus)`, dropping the "
                "`--include` selection. Keep the first N selected slots instead, and raise an error when "
                "`--include` and `--num_gpus` disagree.\n\nFixes #6011",
                "2024-09-04T01:27:40Z",
                F("deepspeed/launcher/runner.py",
                  (468, "def main(args=None):", """
     # Filter resources based on --include and --exclude
     active_resources = parse_inclusion_exclusion(resource_pool, args.include, args.exclude)
     env = os.environ.copy()
 
-    # --num_gpus limits the GPUs used on every node
-    if args.num_gpus > 0:
-        updated_active_resources = collections.OrderedDict()
-        for hostname in active_resources.keys():
-            updated_active_resources[hostname] = list(range(args.num_gpus))
-        active_resources = updated_active_resources
+    # --num_gpus keeps the first N of the *selected* GPUs on every node; it
+    # must not replace a selection made with --include
+    if args.num_gpus > 0:
+        if args.include and any(len(slots) != args.num_gpus for slots in active_resources.values()):
+            raise ValueError(f"--num_gpus {args.num_gpus} conflicts with --include {args.include}")
+        for hostname, slots in active_resources.items():
+            active_resources[hostname] = slots[:args.num_gpus]
 
     if args.elastic_training:
         assert not args.no_local_rank, "--no_local_rank argument is not supported in Elastic training"
"""))),
                fix(6098, "launcher: only an explicit --include can conflict with --num_gpus",
                    "Follow-up to #6020. The launcher converts `CUDA_VISIBLE_DEVICES` into an include "
                    "string for single-node runs, which made `--num_gpus` fail with a conflict the user "
                    "never asked for. Remember whether `--include` came from the command line, and only "
                    "refuse when it selects *fewer* GPUs than `--num_gpus`.",
                    "2024-09-30T11:08:40Z",
                    F("deepspeed/launcher/runner.py",
                      (421, "def main(args=None):", """
         raise ValueError("Cannot specify num_nodes or num_gpus with include/exclude")
 
     resource_pool = fetch_hostfile(args.hostfile)
+    include_from_user = len(args.include) > 0
 
     # respect CUDA_VISIBLE_DEVICES for a single local node and no explicit resource filters
     cuda_visible_devices = os.environ.get("CUDA_VISIBLE_DEVICES", "")
"""),
                      (472, "def main(args=None):", """
     # --num_gpus keeps the first N of the *selected* GPUs on every node; it
     # must not replace a selection made with --include
     if args.num_gpus > 0:
-        if args.include and any(len(slots) != args.num_gpus for slots in active_resources.values()):
+        # args.include may have been filled in from CUDA_VISIBLE_DEVICES above
+        if include_from_user and any(len(slots) < args.num_gpus for slots in active_resources.values()):
             raise ValueError(f"--num_gpus {args.num_gpus} conflicts with --include {args.include}")
         for hostname, slots in active_resources.items():
             active_resources[hostname] = slots[:args.num_gpus]
""")))])
code(DS, 6011,
     {"symptom": "incorrect_functionality", "root_cause": "incorrect_implementation",
      "fix_pattern": "conditional_logic", "stage": "initialization", "phase": "both"},
     {"symptom": "setup_failure", "fix_pattern": ["conditional_logic", "parameter_handling"],
      "phase": "training"})


item(DS, 6203,
     "[BUG] ZeRO-Infinity NVMe offload: optimizer step takes 40 s, aio read bandwidth 0.2 GB/s",
     """**Describe the bug**
Following the ZeRO-Infinity tutorial with `offload_optimizer.device: nvme` for a 13B model, each \
optimizer step takes about 40 seconds. The tutorial suggests a few seconds. GPU utilisation is near \
zero during the step.

**To Reproduce**
```json
"zero_optimization": {
  "stage": 3,
  "offload_optimizer": {"device": "nvme", "nvme_path": "/scratch/ds_nvme", "pin_memory": true,
                        "buffer_count": 4, "fast_init": false},
  "offload_param": {"device": "nvme", "nvme_path": "/scratch/ds_nvme", "pin_memory": true}
},
"aio": {"block_size": 1048576, "queue_depth": 8, "thread_count": 1,
        "single_submit": false, "overlap_events": true}
```

**Expected behavior**
Step time in the range of the tutorial numbers.

**System info**
 - 1 node, 4x A100 40GB, DeepSpeed 0.15.2, torch 2.4.1
 - `/scratch` is our cluster scratch space
""",
     "bogdan-l", "2024-10-16T12:01:40Z", "2025-01-21T09:30:00Z",
     ["bug", "training"],
     comments=[
         C("tjruwase", "2024-10-17T20:44:12Z",
           "Could you run `ds_nvme_tune --nvme_dir /scratch/ds_nvme` and share its output, plus "
           "`df -T /scratch`?"),
         C("bogdan-l", "2024-10-21T07:58:30Z",
           "```\n$ df -T /scratch\nFilesystem          Type  1K-blocks       Used  Available Use% Mounted on\n"
           "10.2.0.15:/scratch  nfs4  492001280 301441024  190560256  62% /scratch\n```\n\n"
           "`ds_nvme_tune` best configuration: read 0.21 GB/s, write 0.18 GB/s."),
         C("tjruwase", "2024-10-21T17:25:51Z",
           "`/scratch` is an NFS mount, not a local NVMe device. libaio on NFS falls back to "
           "synchronous I/O, so these numbers are what the filesystem delivers. ZeRO-Infinity needs a "
           "local NVMe (ideally several in RAID-0). Do your nodes have a local disk, e.g. `/tmp` on "
           "NVMe?"),
         C("bogdan-l", "2024-10-22T06:12:09Z",
           "Only a small SATA SSD. I'll try CPU offload instead, we have 1 TB RAM."),
         C("github-actions", "2025-01-14T00:22:51Z",
           "This issue has been automatically marked as stale because it has not had recent activity. "
           "It will be closed if no further activity occurs."),
         C("tjruwase", "2025-01-21T09:30:00Z",
           "Closing since this is a hardware/setup limitation rather than a DeepSpeed bug. Please "
           "reopen if CPU offload shows problems."),
     ],
     fixes=[], state_reason="not_planned")
code(DS, 6203,
     {"symptom": "performance_degradation", "root_cause": "configuration_error",
      "fix_pattern": "other", "stage": "memory", "phase": "training"},
     {"stage": "other"})


item(DS, 6344,
     "[BUG] MoE with expert tensor parallelism and drop_tokens=False: RuntimeError shape '[2, 4, -1, 2048]' is invalid",
     """**Describe the bug**
Training a MoE model with `ep_size=2`, `num_experts=8`, `drop_tokens=False` and \
`enable_expert_tensor_parallelism=True` on TP=2 crashes in the first forward pass. With \
`drop_tokens=True` it runs, and without expert TP it runs.

```
Traceback (most recent call last):
  File "pretrain_gpt.py", line 418, in <module>
    pretrain(train_valid_test_datasets_provider, model_provider, ModelType.encoder_or_decoder, forward_step)
  File "/workspace/Megatron-DeepSpeed/megatron/training.py", line 189, in pretrain
    iteration = train(forward_step_func, model, optimizer, opt_param_scheduler, train_data_iterator, valid_data_iterator, process_non_loss_data_func)
  ...
  File "/opt/conda/lib/python3.10/site-packages/deepspeed/moe/layer.py", line 132, in forward
    output = self.deepspeed_moe(hidden_states, used_token)
  File "/opt/conda/lib/python3.10/site-packages/deepspeed/moe/sharded_moe.py", line 571, in forward
    dispatched_input = dispatched_input.reshape(self.ep_size, self.num_local_experts, -1, d_model)
RuntimeError: shape '[2, 4, -1, 2048]' is invalid for input of size 12587008
```

**To Reproduce**
Megatron-DeepSpeed `examples_deepspeed/MoE/ds_pretrain_gpt_1.3B_MoE128.sh` with \
`EP_SIZE=2 MP_SIZE=2 --moe-expert-parallel-size 2 --enable-expert-tensor-parallelism --disable-moe-token-dropping`.

**Expected behavior**
`drop_tokens=False` should work with expert tensor parallelism.

**System info**
 - DeepSpeed 0.16.2, torch 2.5.1+cu124
 - 2 nodes x 8 H100
""",
     "ravi-ns", "2025-01-08T03:14:55Z", "2025-02-26T22:41:09Z",
     ["bug", "training"],
     comments=[
         C("tohtana", "2025-01-10T01:37:21Z",
           "Thanks. With `drop_tokens=False` the capacity is raised to the largest number of tokens any "
           "expert gets, but it is computed before the duplicated tokens of the TP ranks are dropped, so "
           "the capacity and the actual input disagree."),
         C("ravi-ns", "2025-01-10T04:02:45Z", "Makes sense. Is there a workaround meanwhile?"),
         C("tohtana", "2025-01-10T18:11:30Z", "Only `drop_tokens=True` for now, sorry."),
         C("ravi-ns", "2025-02-26T23:00:12Z", "Thanks for #6367, the 1.3B-MoE run is training fine."),
     ],
     fixes=[fix(6367, "MoE: compute the capacity after dropping duplicated expert-TP tokens",
                "With `drop_tokens=False` and expert tensor parallelism, compute the capacity from the "
                "tokens this rank actually dispatches, and check the shape before the all-to-all with a "
                "readable error.\n\nFixes #6344",
                "2025-02-26T22:41:02Z",
                F("deepspeed/moe/sharded_moe.py",
                  (540, "def forward(self, *input: Tensor, **kwargs: Any) -> Tensor:", """
         # Initial implementation -> Reshape into S tokens by dropping sequence dimension.
         # Reshape into G groups so that each group can distribute tokens equally
         # group_size = kwargs['group_size'] if 'group_size' in kwargs.keys() else 1
         reshaped_input = input[0].reshape(-1, d_model)
 
+        if self.ep_group is not None and groups._get_expert_model_parallel_world_size() > 1:
+            # tokens are duplicated across expert-TP ranks: keep this rank's share
+            # *before* gating, so that the capacity matches what is dispatched
+            reshaped_input = drop_tokens(reshaped_input, dim=0)
+
         if self.use_tutel:
             self.l_aux, C, E, indices_, locations_, gates_, self.exp_counts = self.gate(reshaped_input, input[1], True)
             S, M = reshaped_input.size(0), reshaped_input.size(1)
"""),
                  (558, "def forward(self, *input: Tensor, **kwargs: Any) -> Tensor:", """
             self.l_aux, combine_weights, dispatch_mask, self.exp_counts = self.gate(reshaped_input, input[1])
             dispatched_input = einsum("sec,sm->ecm", dispatch_mask.type_as(input[0]), reshaped_input)
 
-        if groups._get_expert_model_parallel_world_size() == 1:
-            # If the non-expert is tensor-parallel, it will create
-            # duplicate tokens on the tensor-parallel ranks.
-            # Since our experts are not tensor-parallel, these duplicates
-            # need to be dropped to ensure correctness.
-            # this also doubles up as a communication optimization as we are
-            # reducing the all-to-all communication volume.
-            dispatched_input = drop_tokens(dispatched_input, dim=1)
+        expected = self.ep_size * self.num_local_experts
+        if dispatched_input.size(0) != expected:
+            raise RuntimeError(f"MoE dispatch produced {dispatched_input.size(0)} expert slots, expected "
+                               f"ep_size * num_local_experts = {expected}")
 
         dispatched_input = _AllToAll.apply(self.ep_group, dispatched_input)
 
""")))])


# ---- hpcaitech/ColossalAI ----------------------------------------------------

CAI_EXISTING = """### Is there an existing issue for this bug?

- [X] I have searched the existing issues

"""

item(CAI, 2387,
     "[BUG]: GeminiDDP crashes with tied embedding weights: tensor state COMPUTE, expected HOLD_AFTER_BWD",
     """### 🐛 Describe the bug

Training GPT-2 with `GeminiDDP` (placement policy `cuda`) crashes in the first backward pass as soon \
as the input embedding and the LM head share their weight (`tie_word_embeddings=True`, the default \
for GPT-2). With untied weights it trains.

```python
from colossalai.nn.parallel import GeminiDDP
from colossalai.utils.model.colo_init_context import ColoInitContext

with ColoInitContext(device=get_current_device()):
    model = GPT2LMHeadModel(GPT2Config(n_layer=12))
model = GeminiDDP(model, device=get_current_device(), placement_policy="cuda", pin_memory=True)
optimizer = GeminiAdamOptimizer(model, lr=1e-3, initial_scale=2**5)

loss = model(input_ids, labels=input_ids).loss
optimizer.backward(loss)
```

```
Traceback (most recent call last):
  File "train_gpt_demo.py", line 301, in <module>
    main()
  File "train_gpt_demo.py", line 266, in main
    optimizer.backward(loss)
  File "/home/zhang/ColossalAI/colossalai/nn/optimizer/zero_optimizer.py", line 240, in backward
    self.module.backward(loss)
  File "/home/zhang/ColossalAI/colossalai/nn/parallel/data_parallel.py", line 293, in backward
    loss.backward()
  File "/home/zhang/miniconda3/envs/cai/lib/python3.9/site-packages/torch/_tensor.py", line 396, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)
  File "/home/zhang/ColossalAI/colossalai/nn/parallel/data_parallel.py", line 318, in grad_handle
    self.chunk_manager.trans_tensor_state(p, TensorState.READY_FOR_REDUCE)
  File "/home/zhang/ColossalAI/colossalai/gemini/chunk/chunk.py", line 521, in tensor_trans_state
    assert self.tensors_info[tensor].state == TensorState.HOLD_AFTER_BWD or ...
AssertionError: tensor state of a tied parameter is TensorState.COMPUTE, expected TensorState.HOLD_AFTER_BWD
```

### Environment

- ColossalAI 0.2.0 (main @ 8a32c41), PyTorch 1.12.1+cu113, CUDA 11.3
- 4x RTX 3090
""",
     "zhang-yq", "2023-01-09T06:48:12Z", "2023-01-13T10:25:37Z",
     ["bug"],
     comments=[
         C("1SAA", "2023-01-09T09:02:55Z",
           "Thanks for reporting. The gradient hook of a tied parameter runs twice (once per use), and "
           "the second call finds the tensor already moved on. We'll fix it."),
         C("1SAA", "2023-01-13T10:25:30Z", "Fixed in #2396."),
     ],
     fixes=[fix(2396, "[gemini] fix gradient hook of tied parameters",
                "A parameter used twice in the forward pass gets its gradient hook called twice. "
                "Accumulate in the first call and move the tensor state only once.\n\nFixes #2387",
                "2023-01-13T10:20:11Z",
                F("colossalai/nn/parallel/data_parallel.py",
                  (305, "def grad_handle(self, p, grad):", """
     def grad_handle(self, p, grad):
         empty_grad = torch.empty_like(grad)
         free_storage(empty_grad)
         with torch._C.DisableTorchFunction():
             chunk = self.chunk_manager.get_chunk(p)
-            assert chunk.tensors_info[p].state == TensorState.HOLD_AFTER_BWD
+            if chunk.tensors_info[p].state == TensorState.READY_FOR_REDUCE:
+                # tied parameter: the hook of its other use already ran;
+                # its gradient arrives summed in `grad`, so only copy it
+                chunk.copy_tensor_to_chunk_slice(p, grad)
+                return empty_grad
+            if chunk.tensors_info[p].state != TensorState.HOLD_AFTER_BWD:
+                raise RuntimeError(f"parameter {self.param2name.get(p, '?')} is in state "
+                                   f"{chunk.tensors_info[p].state} during backward")
             self.chunk_manager.trans_tensor_state(p, TensorState.READY_FOR_REDUCE)
             chunk.copy_tensor_to_chunk_slice(p, grad)
             reduced = self.chunk_manager.reduce_chunk(chunk)
""")))])


item(CAI, 3105,
     "[BUG]: colossalai run --hostfile 报错 IndexError when the hostfile has comments or blank lines",
     CAI_EXISTING + """### 🐛 Describe the bug

使用 `colossalai run --nproc_per_node 8 --hostfile ./hostfile` 启动两机训练时直接报错退出。\
hostfile 里有一行注释和一个空行（和 DeepSpeed 的 hostfile 一样的写法）。删掉注释和空行以后可以正常启动。

(English: launching a two-node job with a hostfile that contains a comment line and an empty line \
fails; without them it starts.)

hostfile:
```
# 训练节点 / training nodes
node-a01

node-a02
```

```
Traceback (most recent call last):
  File "/opt/conda/bin/colossalai", line 8, in <module>
    sys.exit(cli())
  File "/opt/conda/lib/python3.9/site-packages/click/core.py", line 1130, in __call__
    return self.main(*args, **kwargs)
  File "/opt/conda/lib/python3.9/site-packages/colossalai/cli/launcher/__init__.py", line 84, in run
    launch_multi_processes(args)
  File "/opt/conda/lib/python3.9/site-packages/colossalai/cli/launcher/run.py", line 228, in launch_multi_processes
    device_pool = fetch_hostfile(args.hostfile, ssh_port=args.ssh_port)
  File "/opt/conda/lib/python3.9/site-packages/colossalai/cli/launcher/run.py", line 44, in fetch_hostfile
    hostname = line.split()[0]
IndexError: list index out of range
```

### Environment

| 项目 | 版本 |
|---|---|
| ColossalAI | 0.2.7 |
| PyTorch | 1.13.1 |
| CUDA | 11.7 |
| 机器 | 2 × 8 × A100 40GB |
""",
     "liwei-sh", "2023-03-13T02:10:44Z", "2023-03-20T08:31:19Z",
     ["bug"],
     comments=[
         C("FrankLeeeee", "2023-03-13T03:22:01Z", "感谢反馈，我们会修复。Thanks, we will skip comments and blank lines."),
         C("liwei-sh", "2023-03-20T08:40:55Z", "已确认修复 ✅ confirmed on main."),
     ],
     fixes=[fix(3121, "[cli] skip comments and blank lines in the hostfile",
                "Fixes #3105", "2023-03-20T08:31:12Z",
                F("colossalai/cli/launcher/run.py",
                  (38, "def fetch_hostfile(hostfile_path: str, ssh_port: int) -> HostInfoList:", """
     with open(hostfile_path, 'r') as fd:
         device_pool = HostInfoList()
 
         for line in fd.readlines():
-            line = line.strip()
+            # drop comments and surrounding whitespace; skip what is left empty
+            line = line.split('#', 1)[0].strip()
+            if not line:
+                continue
             hostname = line.split()[0]
             hostinfo = HostInfo(hostname=hostname, port=ssh_port)
 
""")))])
code(CAI, 3105,
     {"symptom": "setup_failure", "root_cause": "exception_handling",
      "fix_pattern": "conditional_logic", "stage": "initialization", "phase": "training"},
     {"symptom": "crash", "root_cause": "incorrect_implementation"})


item(CAI, 3562,
     "[BUG]: LowLevelZeroOptimizer with partition_grad=True clips with a per-rank grad norm, loss diverges",
     CAI_EXISTING + """### 🐛 Describe the bug

With the low-level ZeRO optimizer in stage 2 (`partition_grad=True`) and `clip_grad_norm=1.0`, \
the loss of our 1.3B model diverges after ~800 steps, while stage 1 (`partition_grad=False`) with \
the same seed is stable. Printing the grad norm in `step()` shows that each rank computes a \
**different** norm:

```
rank 0  total_norm 0.8731
rank 1  total_norm 0.9102
rank 2  total_norm 0.8817
rank 3  total_norm 0.8659
```

In stage 1 all ranks print `1.7651`, which is roughly `sqrt(sum of squares)` of the four values. So \
in stage 2 the norm seems to be computed over the local gradient partition only, and every rank \
clips its shard with a different coefficient.

### To reproduce

```python
optimizer = LowLevelZeroOptimizer(
    HybridAdam(model.parameters(), lr=3e-4),
    overlap_communication=True,
    partition_grad=True,      # ZeRO-2
    clip_grad_norm=1.0,
    initial_scale=2**16,
)
```

### Environment

- ColossalAI 0.2.8, torch 1.13.1+cu117
- 4x A100 80GB
""",
     "dmitri-p", "2023-04-14T17:36:08Z", "2023-06-02T12:00:43Z",
     ["bug"],
     comments=[
         C("Gy-Lu", "2023-04-17T06:51:34Z",
           "Thank you for the detailed report. In stage 2 the norm is computed before the all-reduce "
           "across the data parallel group. Will fix."),
         C("dmitri-p", "2023-05-22T10:13:02Z", "Any update? We're still pinned to stage 1."),
         C("Gy-Lu", "2023-05-29T03:40:18Z", "PR is up: #3870."),
         C("dmitri-p", "2023-06-01T09:18:44Z", "Checked #3870: all ranks report 1.7651, and the run no longer diverges."),
     ],
     fixes=[fix(3870, "[zero] all-reduce the squared grad norm in stage 2",
                "Fixes #3562", "2023-06-02T12:00:37Z",
                F("colossalai/zero/low_level/low_level_optim.py",
                  (449, "def _compute_grad_norm(self, gradients: List[Tensor], norm_type: int = 2) -> float:", """
         if norm_type == inf:
             total_norm = max(grad.data.abs().max() for grad in gradients)
             total_norm_cuda = torch.cuda.FloatTensor([float(total_norm)])
             if self._partition_grads:
-                dist.all_reduce(total_norm_cuda, op=torch.distributed.ReduceOp.MAX, group=self._mp_torch_group)
+                # each rank holds only its own shard of the gradients
+                dist.all_reduce(total_norm_cuda, op=torch.distributed.ReduceOp.MAX, group=self.dp_pg)
+            if self._mp_torch_group is not None:
+                dist.all_reduce(total_norm_cuda, op=torch.distributed.ReduceOp.MAX, group=self._mp_torch_group)
             total_norm = total_norm_cuda.item()
 
         else:
"""),
                  (457, "def _compute_grad_norm(self, gradients: List[Tensor], norm_type: int = 2) -> float:", """
             total_norm_exponentiated = 0.0
             for grad in gradients:
                 grad_norm_exponentiated = grad.data.double().norm(norm_type)**norm_type
                 total_norm_exponentiated += grad_norm_exponentiated
 
             total_norm_exponentiated_cuda = torch.cuda.FloatTensor([float(total_norm_exponentiated)])
             if self._partition_grads:
-                dist.all_reduce(total_norm_exponentiated_cuda, op=torch.distributed.ReduceOp.SUM,
-                                group=self._mp_torch_group)
+                dist.all_reduce(total_norm_exponentiated_cuda, op=torch.distributed.ReduceOp.SUM, group=self.dp_pg)
+            if self._mp_torch_group is not None:
+                dist.all_reduce(total_norm_exponentiated_cuda, op=torch.distributed.ReduceOp.SUM,
+                                group=self._mp_torch_group)
 
             total_norm = total_norm_exponentiated_cuda.item()**(1.0 / norm_type)
 
""")))])
code(CAI, 3562,
     {"symptom": "incorrect_functionality", "root_cause": "distributed_communication",
      "fix_pattern": "distributed_tuning", "stage": "computation", "phase": "training"},
     {"fix_pattern": "algorithm_rewrite"})


item(CAI, 4261,
     "[BUG]: shardformer + Llama-2-70B (GQA) with tp_size=4: RuntimeError shape '[1, 4096, 8, 128]' is invalid",
     CAI_EXISTING + """### 🐛 Describe the bug

Sharding Llama-2-70B with `HybridParallelPlugin(tp_size=4, pp_size=1)` fails in the first forward \
pass. Llama-2-70B uses grouped-query attention (`num_key_value_heads=8`, `num_attention_heads=64`); \
the policy divides `num_heads` by the TP size but leaves `num_key_value_heads` at 8, so the reshape \
of the (already sharded) key states fails. 7B/13B (no GQA) are fine.

```
  File "/mnt/data/ColossalAI/colossalai/shardformer/modeling/llama.py", line 412, in forward
    key_states = self.k_proj(hidden_states).view(bsz, q_len, self.num_key_value_heads, self.head_dim).transpose(1, 2)
RuntimeError: shape '[1, 4096, 8, 128]' is invalid for input of size 1048576
```

```python
plugin = HybridParallelPlugin(tp_size=4, pp_size=1, precision="bf16", zero_stage=1)
booster = Booster(plugin=plugin)
model = LlamaForCausalLM(LlamaConfig.from_pretrained("meta-llama/Llama-2-70b-hf"))
model, optimizer, *_ = booster.boost(model, optimizer)
```

### Environment

- ColossalAI main @ `2c8ae37` (0.3.1), torch 2.0.1, transformers 4.31.0
- 8 nodes x 8 A100 80GB
""",
     "quentinbs", "2023-07-24T13:55:02Z", "2023-08-01T07:19:46Z",
     ["bug", "shardformer"],
     comments=[
         C("flybird11111", "2023-07-25T02:30:11Z",
           "Confirmed. `num_key_value_heads` needs to be divided too, and TP sizes larger than the number of "
           "KV heads are not supported yet; we'll add a clear error for that case."),
         C("quentinbs", "2023-08-01T07:30:05Z", "Works with the fix, thanks. 70B trains at tp=8 now."),
     ],
     fixes=[fix(4282, "[shardformer] support grouped-query attention in the Llama policy",
                "- divide `num_key_value_heads` by the TP size\n"
                "- check divisibility of both head counts with a readable error\n"
                "- add a GQA config to the Llama shardformer test\n\nFixes #4261",
                "2023-08-01T07:19:40Z",
                F("colossalai/shardformer/policies/llama.py",
                  (41, "def module_policy(self) -> Dict[Union[str, nn.Module], ModulePolicyDescription]:", """
         policy = {}
 
         if self.shard_config.enable_tensor_parallelism:
+            tp_size = self.shard_config.tensor_parallel_size
+            config = self.model.config
+            assert config.num_attention_heads % tp_size == 0, \\
+                f"num_attention_heads ({config.num_attention_heads}) must be divisible by tp_size ({tp_size})"
             decoder_attribute_replacement = {
-                "self_attn.hidden_size": self.model.config.hidden_size // self.shard_config.tensor_parallel_size,
-                "self_attn.num_heads": self.model.config.num_attention_heads // self.shard_config.tensor_parallel_size,
+                "self_attn.hidden_size": config.hidden_size // tp_size,
+                "self_attn.num_heads": config.num_attention_heads // tp_size,
             }
+            if getattr(config, "num_key_value_heads", None) is not None:
+                # grouped-query attention (e.g. Llama-2-70B): the KV heads are sharded too
+                assert config.num_key_value_heads % tp_size == 0, \\
+                    f"num_key_value_heads ({config.num_key_value_heads}) must be divisible by tp_size ({tp_size})"
+                decoder_attribute_replacement["self_attn.num_key_value_heads"] = config.num_key_value_heads // tp_size
 
             policy[LlamaDecoderLayer] = ModulePolicyDescription(
                 attribute_replacement=decoder_attribute_replacement,
""")),
                F("tests/kit/model_zoo/transformers/llama.py",
                  (61, "", """
                          num_attention_heads=4,
                          max_position_embeddings=128,
                          num_labels=16)
+    config_gqa = LlamaConfig(num_hidden_layers=4,
+                             hidden_size=128,
+                             intermediate_size=256,
+                             num_attention_heads=4,
+                             num_key_value_heads=2,
+                             max_position_embeddings=128,
+                             num_labels=16)
 
     if hasattr(config, "pad_token_id"):
         config.pad_token_id = config.eos_token_id
"""),
                  (80, "", """
                          data_gen_fn=data_gen_for_casual_lm,
                          output_transform_fn=output_transform_fn,
                          loss_fn=loss_fn_for_casual_lm,
                          model_attribute=ModelAttribute(has_control_flow=True))
+    model_zoo.register(name="transformers_llama_for_casual_lm_gqa",
+                       model_fn=lambda: transformers.LlamaForCausalLM(config_gqa),
+                       data_gen_fn=data_gen_for_casual_lm,
+                       output_transform_fn=output_transform_fn,
+                       loss_fn=loss_fn_for_casual_lm,
+                       model_attribute=ModelAttribute(has_control_flow=True))
     model_zoo.register(name="transformers_llama_for_sequence_classification",
                        model_fn=lambda: transformers.LlamaForSequenceClassification(config),
                        data_gen_fn=data_gen,
""")))])
code(CAI, 4261,
     {"symptom": "crash", "root_cause": "tensor_shape_misalignment",
      "fix_pattern": "parameter_handling", "stage": "initialization", "phase": "training"},
     {"stage": "computation"})


item(CAI, 4480,
     "[BUG]: HybridParallelPlugin with pp_size=2 hangs at the last (smaller) batch of an epoch",
     CAI_EXISTING + """### 🐛 Describe the bug

Fine-tuning with `HybridParallelPlugin(tp_size=2, pp_size=2, num_microbatches=4)` trains for a whole \
epoch and then hangs forever on the last step of the epoch. The dataloader is built with \
`drop_last=False`, so the last batch has 6 samples instead of 16.

With `microbatch_size` given instead of `num_microbatches` it hangs in the same place. With \
`drop_last=True` there is no hang.

`py-spy dump` of the two stages:

```
Process 31207: python finetune.py   (stage 0)
Thread 31207 (active): "MainThread"
    _communicate (colossalai/pipeline/p2p.py:153)
    recv_backward (colossalai/pipeline/p2p.py:203)
    run_forward_backward (colossalai/pipeline/schedule/one_f_one_b.py:272)

Process 31208: python finetune.py   (stage 1)
Thread 31208 (active): "MainThread"
    _communicate (colossalai/pipeline/p2p.py:153)
    recv_forward (colossalai/pipeline/p2p.py:192)
    run_forward_backward (colossalai/pipeline/schedule/one_f_one_b.py:258)
```

Stage 1 waits for a third micro-batch that stage 0 never sends: stage 0 thinks the batch has 2 \
micro-batches (6 samples / micro-batch size 4, rounded up), stage 1 still expects 4.

### Environment

```
colossalai 0.3.2
torch 2.0.0+cu117
transformers 4.33.1
4x A100 40GB, single node
```
""",
     "marta-g", "2023-08-18T15:47:33Z", "2023-09-12T04:06:20Z",
     ["bug", "pipeline"],
     comments=[
         C("CjhHa1", "2023-08-21T09:13:45Z",
           "Thanks! `load_batch` computes the number of micro-batches from the batch size on the first stage "
           "(ceil division) and from the config on the others. A partial last batch makes them disagree."),
         C("marta-g", "2023-08-21T10:02:11Z", "Would an error be acceptable? A clear message is better than a hang."),
         C("CjhHa1", "2023-09-05T11:55:02Z",
           "#4512 derives the count the same way on every stage and raises if the batch can't be split evenly."),
     ],
     fixes=[fix(4512, "[pipeline] compute the number of micro-batches identically on all stages",
                "The first stage derived the number of micro-batches from the batch it loaded, the "
                "others from the configuration, so a partial batch made the stages disagree and hang in "
                "p2p communication. Derive it in one place from the batch size, and raise a "
                "`ValueError` when the batch cannot be split evenly.\n\nFixes #4480",
                "2023-09-12T04:06:12Z",
                F("colossalai/pipeline/schedule/one_f_one_b.py",
                  (52, "def load_batch(self, data_iter: Iterable, device: Optional[torch.device] = None) -> None:", """
         batch = next(data_iter)
         if device is not None:
             batch = tree_map(partial(to_device, device=device), batch)
+
+        batch_size = get_batch_size(batch)
+        if self.microbatch_size is None:
+            if batch_size % self.num_microbatches != 0:
+                raise ValueError(f"Batch size {batch_size} is not divisible by num_microbatches "
+                                 f"({self.num_microbatches}); use drop_last=True in the dataloader")
+            self.microbatch_size = batch_size // self.num_microbatches
+        elif batch_size % self.microbatch_size != 0:
+            raise ValueError(f"Batch size {batch_size} is not divisible by microbatch_size "
+                             f"({self.microbatch_size}); use drop_last=True in the dataloader")
+
         self.batch = batch
-        self.batch_size = get_batch_size(batch)
+        self.batch_size = batch_size
         self.microbatch_offset = 0
-        if self.microbatch_size is None:
-            self.microbatch_size = self.batch_size // self.num_microbatches
-        if self.stage_manager.is_first_stage():
-            # the first stage cuts the micro-batches; the last one may be smaller
-            self.num_microbatches = math.ceil(self.batch_size / self.microbatch_size)
+        # every stage runs exactly this many micro-batches
+        self.num_microbatches = batch_size // self.microbatch_size
 
     def load_micro_batch(self) -> Any:
         \"\"\"Load a micro batch from the current batch.
""")))])


item(CAI, 4799,
     "[BUG]: loading a sharded checkpoint saved with tp_size=2 into tp_size=4 fails: size mismatch for embed_tokens.weight",
     CAI_EXISTING + """### 🐛 Describe the bug

I saved a Llama-7B checkpoint with `booster.save_model(model, path, shard=True)` while training \
with `HybridParallelPlugin(tp_size=2, pp_size=1)` and want to continue with `tp_size=4` on more \
GPUs. `booster.load_model` fails:

```
Traceback (most recent call last):
  File "/workspace/train.py", line 187, in <module>
    booster.load_model(model, args.resume)
  File "/usr/local/lib/python3.10/dist-packages/colossalai/booster/booster.py", line 276, in load_model
    self.checkpoint_io.load_model(model, checkpoint, strict)
  File "/usr/local/lib/python3.10/dist-packages/colossalai/checkpoint_io/checkpoint_io_base.py", line 125, in load_model
    self.load_sharded_model(model, index_file_path, strict)
  File "/usr/local/lib/python3.10/dist-packages/colossalai/checkpoint_io/hybrid_parallel_checkpoint_io.py", line 264, in load_sharded_model
    _load(name)
  File "/usr/local/lib/python3.10/dist-packages/colossalai/checkpoint_io/hybrid_parallel_checkpoint_io.py", line 247, in _load
    _load_from_state_dict(model_sub_module, state_dict, prefix, {}, strict, missing_keys, [], error_msgs)
RuntimeError: Error(s) in loading state_dict for VocabParallelEmbedding1D:
	size mismatch for weight: copying a param with shape torch.Size([16000, 4096]) from checkpoint, the shape in current model is torch.Size([8000, 4096]).
```

The q/k/v/o and MLP weights seem to be saved gathered (full shape), but the embedding and the \
LM head are saved as the local shard of the rank that wrote the file.

### To reproduce

1. Train with `tp_size=2`, `booster.save_model(model, "ckpt", shard=True, size_per_shard=1024)`.
2. Start a new job with `tp_size=4` and `booster.load_model(model, "ckpt")`.

Loading with the **same** `tp_size=2` works, which is probably why the tests pass.

### Environment

- colossalai 0.3.3, torch 2.0.1+cu118, transformers 4.33.3
- 2 x 8 A800 80GB
""",
     "ahmed-s", "2023-09-26T08:20:47Z", "2023-11-07T14:52:13Z",
     ["bug", "checkpointio"],
     comments=[
         C("Fridge003", "2023-09-27T03:11:36Z",
           "Thanks for the report. The saving side gathers only parameters of `Linear1D_Col/Row`. "
           "`VocabParallelEmbedding1D` and the vocab-parallel LM head keep their local shard, and the "
           "vocabulary is padded to a multiple of the TP size, so the padding has to be removed too."),
         C("ahmed-s", "2023-10-16T12:40:27Z", "Is there a way to convert my existing checkpoints?"),
         C("Fridge003", "2023-10-17T02:05:58Z",
           "Checkpoints written before the fix hold only one TP shard of the embeddings, the other "
           "shard is lost. You'd need to reload them with the original `tp_size=2` and save again once "
           "the fix is in."),
         C("Fridge003", "2023-11-07T14:52:10Z", "Fixed in #4905, will be in 0.3.4."),
     ],
     fixes=[fix(4905, "[checkpointio] gather vocab-parallel parameters and strip vocab padding on save",
                "- gather every distributed parameter on save, not only those of the 1D linear layers\n"
                "- remove the vocabulary padding before saving; re-pad and shard on load\n"
                "- test saving with one TP size and loading with another\n\nFixes #4799",
                "2023-11-07T14:47:58Z",
                F("colossalai/checkpoint_io/hybrid_parallel_checkpoint_io.py",
                  (11, "", """
 
 from colossalai.cluster import DistCoordinator
 from colossalai.interface import ModelWrapper, OptimizerWrapper
+from colossalai.shardformer.layer.parallel_module import PaddingParallelModule
 from colossalai.tensor.d_tensor import (
     is_customized_distributed_tensor,
     is_distributed_tensor,
"""),
                  (83, "def _model_sharder(model: nn.Module, prefix: str = \"\", keep_vars: bool = False, size_per_shard: int = 1024):", """
         # Save parameters.
         for name, param in model.named_parameters():
             if param is None:
                 continue
-            # Gather tensor pieces when using tensor parallel.
-            if isinstance(model, (Linear1D_Col, Linear1D_Row)):
-                param_ = gather_distributed_param(param, keep_vars=False)
-            else:
-                param_ = param if keep_vars else param.detach()
+            # Gather every distributed parameter, whatever module owns it, and drop the padding
+            # that vocab-parallel layers add, so that the checkpoint does not depend on tp_size.
+            param_ = gather_distributed_param(param, keep_vars=False)
+            if isinstance(model, PaddingParallelModule):
+                param_ = model.unpad_param(name, param_)
             block, block_size = state_dict_sharder.append_param(prefix + name, param_)
             if block is not None:
                 yield block, block_size
"""),
                  (236, "def load_sharded_model(self, model: ModelWrapper, checkpoint_index_file: Path, strict: bool = False):", """
             if name in loaded_file:
                 return
 
             # Load parameters.
             state_dict = load_shard_state_dict(Path(file_path), use_safetensors)
+            if isinstance(model_sub_module, PaddingParallelModule):
+                state_dict = model_sub_module.pad_and_shard_state_dict(prefix, state_dict)
             missing_keys = []
             error_msgs = []
             _load_from_state_dict(model_sub_module, state_dict, prefix, {}, strict, missing_keys, [], error_msgs)
""")),
                F("colossalai/shardformer/layer/parallel_module.py",
                  (171, "class ParallelModule(nn.Module, ABC):", """
             if key in state_dict:
                 unexpected_keys.append(key)
 
+
+class PaddingParallelModule(ParallelModule):
+    \"\"\"A parallel module whose weight is padded along the vocabulary dimension
+    (dim 0) so that it can be split evenly across the tensor-parallel ranks.\"\"\"
+
+    num_embeddings: int    # the real vocabulary size, without padding
+
+    def unpad_param(self, name: str, full_param: torch.Tensor) -> torch.Tensor:
+        if name not in ("weight", "bias") or full_param.size(0) == self.num_embeddings:
+            return full_param
+        return full_param[:self.num_embeddings]
+
+    def pad_and_shard_state_dict(self, prefix: str, state_dict: dict) -> dict:
+        tp_size = dist.get_world_size(self.process_group)
+        tp_rank = dist.get_rank(self.process_group)
+        for name in ("weight", "bias"):
+            key = prefix + name
+            if key not in state_dict:
+                continue
+            full = state_dict[key]
+            padded_rows = -(-full.size(0) // tp_size) * tp_size
+            if padded_rows != full.size(0):
+                padding = full.new_zeros((padded_rows - full.size(0), *full.shape[1:]))
+                full = torch.cat([full, padding], dim=0)
+            state_dict[key] = full.chunk(tp_size, dim=0)[tp_rank].contiguous()
+        return state_dict
""")),
                F("colossalai/shardformer/layer/embedding.py",
                  (159, "class Embedding1D(ParallelModule):", """
         return output
 
 
-class VocabParallelEmbedding1D(ParallelModule):
+class VocabParallelEmbedding1D(PaddingParallelModule):
     r\"\"\"Embedding parallelized in the vocabulary dimension.
 
     Args:
""")),
                F("tests/test_checkpoint_io/test_hybrid_parallel_plugin_checkpoint_io.py",
                  (112, "def exam_state_dict(shard: bool, model_name: str, size_per_shard: int, test_config: dict):", """
     Randomizer.reset_index()
     torch.cuda.empty_cache()
 
 
+@clear_cache_before_run()
+@parameterize("save_tp, load_tp", [(2, 4), (4, 2)])
+def exam_load_with_different_tp(save_tp: int, load_tp: int):
+    model_fn, data_gen_fn, output_transform_fn, loss_fn, _ = next(
+        iter(model_zoo.get_sub_registry("transformers_llama_for_casual_lm").values()))
+    with shared_tempdir() as tempdir:
+        booster = Booster(plugin=HybridParallelPlugin(tp_size=save_tp, pp_size=1, precision="fp32"))
+        model, *_ = booster.boost(model_fn())
+        booster.save_model(model, tempdir, shard=True, size_per_shard=32)
+        expected = {k: v.clone() for k, v in model.unwrap().state_dict().items()}
+
+        booster = Booster(plugin=HybridParallelPlugin(tp_size=load_tp, pp_size=1, precision="fp32"))
+        new_model, *_ = booster.boost(model_fn())
+        booster.load_model(new_model, tempdir)
+        check_state_dict_equal(new_model.unwrap().state_dict(), expected, ignore_dtype=False)
+
+
 def run_dist(rank, world_size, port):
     config = {}
     colossalai.launch(config=config, rank=rank, world_size=world_size, port=port, host="localhost")
     exam_state_dict()
+    exam_load_with_different_tp()
 
 
 @pytest.mark.dist
""")))])
code(CAI, 4799,
     {"symptom": "crash", "root_cause": "distributed_tensor",
      "fix_pattern": "algorithm_rewrite", "stage": "fault_tolerance", "phase": "training"})


item(CAI, 5102,
     "[BUG]: cpu_adam JIT build fails with GCC 12: 'uint8_t' was not declared in this scope",
     CAI_EXISTING + """### 🐛 Describe the bug

On Fedora 38 (GCC 12.3) the first use of `HybridAdam` fails to build the `cpu_adam` kernel:

```
[2/3] c++ -MMD -MF cpu_adam.o.d -DTORCH_EXTENSION_NAME=cpu_adam ... -O3 -std=c++14 -std=c++17 -lcudart -lcublas -g -Wno-reorder -fopenmp -march=native -c /home/tk/ColossalAI/colossalai/kernel/cuda_native/csrc/cpu_adam.cpp -o cpu_adam.o
FAILED: cpu_adam.o
In file included from /home/tk/ColossalAI/colossalai/kernel/cuda_native/csrc/cpu_adam.cpp:22:
/home/tk/ColossalAI/colossalai/kernel/cuda_native/csrc/cpu_adam.h:97:18: error: 'uint8_t' was not declared in this scope
   97 |   void step(size_t step, float lr, float beta1, float beta2, float epsilon,
      |                  ^~~~~~~
/home/tk/ColossalAI/colossalai/kernel/cuda_native/csrc/cpu_adam.h:31:1: note: 'uint8_t' is defined in header '<cstdint>'; did you forget to '#include <cstdint>'?
ninja: build stopped: subcommand failed.
```

GCC 12 no longer pulls `<cstdint>` in through `<string>`.

### Environment

- Fedora 38, GCC 12.3.1, CUDA 12.1
- colossalai main @ `d5661f0`, torch 2.1.0
""",
     "tkaczmarek", "2023-11-23T19:30:12Z", "2023-11-24T09:12:50Z",
     ["bug"],
     comments=[],
     fixes=[fix(5105, "[kernel] include <cstdint> in cpu_adam.h",
                "Fixes the build with GCC 12 (#5102).", "2023-11-24T09:12:46Z",
                F("colossalai/kernel/cuda_native/csrc/cpu_adam.h",
                  (24, "", """
 #include <cublas_v2.h>
 #include <cuda.h>
 #include <cuda_runtime_api.h>
+#include <cstdint>
 #include <stdio.h>
 #include <torch/extension.h>
 #if (__x86_64__ || __i386__)
""")))])


item(CAI, 5412,
     "[BUG]: TypeError: llama_flash_attn_forward() got an unexpected keyword argument 'cache_position' (transformers 4.38)",
     CAI_EXISTING + """### 🐛 Describe the bug

After `pip install -U transformers` (4.38.1) every Llama training with shardformer and \
`enable_flash_attention=True` crashes in the first forward pass:

```
  File "/usr/local/lib/python3.10/dist-packages/transformers/models/llama/modeling_llama.py", line 740, in forward
    hidden_states, self_attn_weights, present_key_value = self.self_attn(
  File "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", line 1518, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", line 1527, in _call_impl
    return forward_call(*args, **kwargs)
TypeError: forward() got an unexpected keyword argument 'cache_position'
```

`transformers==4.36.2` works.

### Environment

- colossalai 0.3.5, torch 2.1.2, **transformers 4.38.1**, flash-attn 2.5.2
""",
     "n-okafor", "2024-02-23T11:02:39Z", "2024-03-05T07:45:18Z",
     ["bug", "shardformer"],
     comments=[
         C("ver217", "2024-02-23T12:15:40Z",
           "Transformers 4.38 added `cache_position` to the attention forward. For now please pin "
           "`transformers<4.38`; we'll make the replaced forward accept it."),
         C("n-okafor", "2024-02-23T12:31:09Z", "Pinning works, thanks."),
         C("wangbluo", "2024-03-01T08:20:13Z", "PR: #5426 (accepts the new argument, and pins the tested range in requirements)."),
     ],
     fixes=[fix(5426, "[shardformer] support transformers 4.38 in the Llama flash-attention forward",
                "Accept `cache_position` (and any future keyword) in the replaced forward, and declare "
                "the transformers versions we test with.\n\nFixes #5412",
                "2024-03-05T07:45:11Z",
                F("colossalai/shardformer/modeling/llama.py",
                  (400, "def get_llama_flash_attention_forward(shard_config: ShardConfig):", """
         position_ids: Optional[torch.LongTensor] = None,
         past_key_value: Optional[Tuple[torch.Tensor]] = None,
         output_attentions: bool = False,
         use_cache: bool = False,
+        cache_position: Optional[torch.LongTensor] = None,
         **kwargs,
     ) -> Tuple[torch.Tensor, Optional[torch.Tensor], Optional[Tuple[torch.Tensor]]]:
+        if cache_position is not None and past_key_value is not None and not use_cache:
+            warnings.warn("cache_position is ignored when use_cache=False")
         bsz, q_len, _ = hidden_states.size()
         assert q_len % 4 == 0, "Flash Attention Error: The sequence length should be a multiple of 4."
 
"""),
                  (429, "def get_llama_flash_attention_forward(shard_config: ShardConfig):", """
         value_states = self.v_proj(hidden_states).view(bsz, q_len, self.num_key_value_heads, self.head_dim).transpose(1, 2)
 
         kv_seq_len = key_states.shape[-2]
         if past_key_value is not None:
-            kv_seq_len += past_key_value[0].shape[-2]
+            if isinstance(past_key_value, tuple):
+                kv_seq_len += past_key_value[0].shape[-2]
+            else:
+                # transformers >= 4.36: a Cache object
+                kv_seq_len += past_key_value.get_usable_length(kv_seq_len, self.layer_idx)
 
         cos, sin = self.rotary_emb(value_states, seq_len=kv_seq_len)
         query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin, position_ids)
""")),
                F("requirements/requirements.txt",
                  (11, "", """
 ray
 sentencepiece
 google
-transformers
+transformers>=4.36.2,<4.39.0
 protobuf
 peft>=0.7.1
 bitsandbytes>=0.39.0
""")))])
code(CAI, 5412,
     {"symptom": "crash", "root_cause": "version_incompatibility",
      "fix_pattern": ["version_compatibility", "dependency_management"], "stage": "computation",
      "phase": "training"},
     {"symptom": "crash", "fix_pattern": ["version_compatibility"], "stage": "initialization"})


# The hostile item: a plausible report that pastes raw terminal output.  Its
# title, body, a commenter's name, a comment and its diff carry terminal
# control sequences, C0 and C1 controls, a bidi override, BS, lone CR, TAB and
# CRLF line endings.  bugcoder must import it and render it inert.
ESC, BEL = "\u001b", "\u0007"
HOSTILE_BODY = ("### 🐛 Describe the bug\r\n\r\n"
    "When the output of `colossalai run` is redirected to a file (`> train.log 2>&1`), the file is "
    "full of terminal control sequences: `cat train.log` clears my screen, renames the terminal "
    "window and once even replaced my clipboard. This is the start of the log, pasted as it is:\r\n"
    "\r\n"
    "```\r\n"
    + ESC + "[2J" + ESC + "[H" + ESC + "]0;colossalai run: node-a01" + BEL
    + "[04/02/24 10:31:12] INFO     colossalai - colossalai - INFO: Launching 8 processes on node-a01\r\n"
    + ESC + "]52;c;ZXZpbA==" + BEL + ESC + "[6n"
    + "[04/02/24 10:31:15] INFO     colossalai - colossalai - INFO: Distributed environment is initialized\r\n"
    "Loading checkpoint shards: 60%\b\b\b100%\r\n"
    "progress 10%\rprogress 100%\r\n"
    "\u009b31mERROR\u009b0m rank 3: loss is NaN, skipping step\r\n"
    "rank0\u0001\u0002\u0003 step 100\tloss 2.314\tlr 3.0e-4\tgrad_norm 0.87\r\n"
    "saved checkpoint to /data/ckpt/step100_\u202egnp.exe\r\n"
    "```\r\n"
    "\r\n"
    "### Expected\r\n\r\n"
    "Plain text in the log when stdout is not a terminal (no colours, no progress bars, no "
    "window titles). The last line shows the checkpoint name reversed in my terminal, which "
    "was quite confusing.\r\n"
    "\r\n"
    "### Environment\r\n\r\n"
    "| package | version |\r\n"
    "|---|---|\r\n"
    "| colossalai | 0.3.6 |\r\n"
    "| torch | 2.1.2 |\r\n"
    "| fabric | 3.2.2 |\r\n"
    "| rich | 13.7.0 |\r\n")

item(CAI, 5467,
     "[BUG]: colossalai run log is full of escape codes (" + ESC + "[2J" + ESC + "]0;colossalai" + BEL
     + ") when redirected to a file",
     HOSTILE_BODY,
     "yusuf-k", "2024-03-14T09:40:21Z", "2024-03-27T15:02:44Z",
     ["bug"],
     comments=[
         C("term" + ESC + "[2J" + ESC + "]0;owned" + BEL + "inal-user", "2024-03-14T12:05:33Z",
           "Same here. `less -R train.log` shows " + ESC + "]52;c;ZXZpbA==" + BEL + " and " + ESC
           + "[6n in the log, and with a latin-1 remote locale the 8-bit form \u009b2J appears too.\r\n"
           "Workaround: `colossalai run ... | sed 's/\\x1b\\[[0-9;]*[A-Za-z]//g' > train.log`"),
         C("ver217", "2024-03-15T02:48:10Z",
           "The multi-node runner starts the remote processes through fabric with `pty=True`, so they "
           "believe they write to a terminal: rich draws progress bars and colours, and the pty turns "
           "`\\n` into `\\r\\n`. We'll only request a pty when our own stdout is a terminal, and strip "
           "control sequences in the file handler of the logger."),
         C("yusuf-k", "2024-03-27T15:10:00Z", "Confirmed with #5481: the log is plain text now. Thanks!"),
     ],
     fixes=[fix(5481, "[cli] no pty for remote processes when stdout is not a terminal; strip escape codes in log files",
                "- request a pty from fabric only when stdout is a terminal\n"
                "- strip ANSI/OSC/C1 control sequences in the logger's file handler\n"
                "- test with a log captured from a terminal (CRLF, escapes)\n\nFixes #5467",
                "2024-03-27T15:02:40Z",
                F("colossalai/cli/launcher/multinode_runner.py",
                  (27, "def run_on_host(hostinfo: HostInfo, workdir: str, recv_conn: mp_connection.Connection,", """
             # execute on the remote machine
             fab_conn = fabric.Connection(hostinfo.hostname, port=hostinfo.port)
             with fab_conn.cd(workdir):
-                fab_conn.run(cmds, hide=False, pty=True)
+                # a pty makes remote tools emit colours, progress bars and CRLF;
+                # only ask for one when the user is watching a terminal
+                fab_conn.run(cmds, hide=False, pty=sys.stdout.isatty())
             finished = True
 
         elif cmds == "exit":
""")),
                F("colossalai/logging/logger.py",
                  (3, "", """
 
 import inspect
 import logging
+import re
 from pathlib import Path
 from typing import List, Union
 
"""),
                  (14, "", """
 _FORMAT = "colossalai - %(name)s - %(levelname)s: %(message)s"
 logging.basicConfig(level=logging.INFO, format=_FORMAT)
 
+# CSI (7- and 8-bit), OSC up to BEL or ST, other two-byte escapes, C0/C1 controls but TAB/LF
+_CONTROL = re.compile(r"(\\x1b\\[|\\x9b)[0-?]*[ -/]*[@-~]|\\x1b\\][^\\x07\\x1b]*(\\x07|\\x1b\\\\)|\\x1b[@-_]|[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f]")
+
+
+class _StripControlFilter(logging.Filter):
+
+    def filter(self, record):
+        record.msg = _CONTROL.sub("", str(record.msg))
+        return True
+
 
 class DistributedLogger:
     \"\"\"This is a distributed event logger class essentially based on :class:`logging`.
"""),
                  (102, "def log_to_file(self, path: Union[str, Path], mode: str = \"a\", level: str = \"INFO\", suffix: str = None):", """
         # add file handler
         file_handler = logging.FileHandler(path, mode)
         file_handler.setLevel(getattr(logging, level))
+        file_handler.addFilter(_StripControlFilter())
         formatter = logging.Formatter(_FORMAT)
         file_handler.setFormatter(formatter)
         self._logger.addHandler(file_handler)
""")),
                F("tests/test_cli/fixtures/tty_output.log", (0, "", """
+\x1b[2J\x1b[H\x1b]0;colossalai run: node-a01\x07[04/02/24 10:31:12] INFO     colossalai - colossalai - INFO: Launching 8 processes on node-a01
+\x1b]52;c;ZXZpbA==\x07\x1b[6n[04/02/24 10:31:15] INFO     colossalai - colossalai - INFO: Distributed environment is initialized
+Loading checkpoint shards: 60%\x08\x08\x08100%
+progress 10%\rprogress 100%
+\x9b31mERROR\x9b0m rank 3: loss is NaN, skipping step
+rank0 step 100\tloss 2.314\tlr 3.0e-4\tgrad_norm 0.87
"""), new=True, eol="\r\n"),
                F("tests/test_cli/test_log_control_chars.py", (0, "", """
+import logging
+from pathlib import Path
+
+from colossalai.logging.logger import _StripControlFilter
+
+FIXTURE = Path(__file__).parent / "fixtures" / "tty_output.log"
+
+
+def test_file_handler_strips_control_sequences():
+    f = _StripControlFilter()
+    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
+        record = logging.LogRecord("t", logging.INFO, __file__, 1, line, None, None)
+        f.filter(record)
+        assert not any(ch in record.msg for ch in "\\x1b\\x07\\x08\\r\\x9b"), repr(record.msg)
+        assert "\\t" in record.msg or "\\t" not in line
"""), new=True))])

# (no labels for the hostile item: it exists to test the screen, not the statistics)


item(CAI, 5590,
     "[BUG]: Colossal-Inference tp_size=2 with do_sample=True: ranks produce different text, then device-side assert",
     CAI_EXISTING + """### 🐛 Describe the bug

With the new inference engine and `tp_size=2`, greedy decoding is fine, but sampling \
(`do_sample=True, top_p=0.9, temperature=0.7`) gives a **different** completion on each TP rank; \
after ~100 tokens the job dies with a CUDA device-side assert in the KV-cache copy kernel.

```python
from colossalai.inference import InferenceEngine, InferenceConfig
from transformers import GenerationConfig

config = InferenceConfig(tp_size=2, max_batch_size=8, max_output_len=256, dtype="fp16")
engine = InferenceEngine(model, tokenizer, config, verbose=True)
gen = GenerationConfig(do_sample=True, top_p=0.9, temperature=0.7, max_new_tokens=256)
print(dist.get_rank(), engine.generate(prompts=["Write a haiku about GPUs."], generation_config=gen))
```

```
0 ['Write a haiku about GPUs.\\nSilicon rivers\\nthousands of cores hum as one\\nwarm light in the rack']
1 ['Write a haiku about GPUs.\\nFans spin through the night\\nmatrix dreams in parallel\\nthe loss curve descends']
...
../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [12,0,0], thread: [64,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && "index out of bounds"` failed.
RuntimeError: CUDA error: device-side assert triggered
```

I suppose each rank samples with its own random state, so the sequences (and their lengths) \
diverge and the block tables stop matching.

### Environment

- colossalai main @ `3ad3f6a`, torch 2.2.2, transformers 4.39.3
- 2x RTX 4090
""",
     "chen-lh", "2024-04-15T05:12:56Z", "2024-05-08T10:33:27Z",
     ["bug", "colossal-inference"],
     comments=[
         C("yuanheng-zhao", "2024-04-16T03:27:11Z",
           "Yes, sampling is done independently on every TP rank. Seeding all ranks the same isn't "
           "enough either (the logits can differ in the last bit between ranks). We'll broadcast the "
           "sampled tokens from TP rank 0."),
         C("chen-lh", "2024-04-16T04:00:35Z", "Sounds right 🙏"),
         C("yuanheng-zhao", "2024-05-08T10:33:20Z", "Fixed by #5606."),
     ],
     fixes=[fix(5606, "[inference] use the tokens sampled on TP rank 0 on all TP ranks",
                "Fixes #5590", "2024-05-08T10:30:02Z",
                F("colossalai/inference/core/engine.py",
                  (6, "", """
 import numpy as np
 import torch
 import torch.nn as nn
+import torch.distributed as dist
 from transformers import (
     AutoConfig,
     GenerationConfig,
"""),
                  (602, "def step(self) -> List[str]:", """
         if self.inference_config.pad_input:
             logits = logits[:, -1, :]
         next_tokens = search_tokens(self.generation_config, logits, input_meta_data.is_prompts, batch_token_ids)
+        if self.tp_size > 1:
+            # sampling uses each rank's own random state: continue on every TP rank
+            # with the tokens chosen on TP rank 0, or the KV caches diverge
+            dist.broadcast(next_tokens, src=dist.get_global_rank(self.tp_group, 0), group=self.tp_group)
         self.request_handler.append_next_tokens(next_tokens)
         finished_sequences = self.request_handler.update()
 
""")))])


item(CAI, 5702,
     "[BUG]: LowLevelZeroPlugin(overlap_communication=True) is slower than overlap_communication=False",
     CAI_EXISTING + """### 🐛 Describe the bug

Benchmarking Llama-7B with `LowLevelZeroPlugin(stage=2)` on 8 GPUs:

| overlap_communication | tokens/s/GPU | step time |
|---|---|---|
| False | 2,910 | 5.63 s |
| True | 2,480 | 6.61 s |

The trace shows a full `cudaDeviceSynchronize` after every bucket in `_run_reduction`, so \
nothing overlaps and the extra stream only adds overhead.

### Environment

- colossalai 0.3.7, torch 2.2.1+cu121, 8x H800
""",
     "gpuperf", "2024-05-13T16:50:39Z", "2024-05-14T06:21:02Z",
     ["bug"],
     comments=[
         C("botbw", "2024-05-14T01:02:41Z",
           "Good catch, the device-wide sync should be a stream wait. PR #5705."),
         C("gpuperf", "2024-05-14T06:40:12Z", "3,020 tokens/s/GPU with the fix, thanks!"),
     ],
     fixes=[fix(5705, "[zero] wait for the communication stream instead of synchronizing the device",
                "Fixes #5702", "2024-05-14T06:20:57Z",
                F("colossalai/zero/low_level/low_level_optim.py",
                  (283, "def _run_reduction(self):", """
                         self._bucket_store.reset_num_elements_in_bucket()
 
             if self._overlap_communication:
-                torch.cuda.synchronize()
+                # wait for the reduction stream only, not for the whole device
+                get_accelerator().current_stream().wait_stream(self._comm_stream)
 
             self._bucket_store.reset()
 
""")))])
code(CAI, 5702,
     {"symptom": "performance_degradation", "root_cause": "concurrency",
      "fix_pattern": "other", "stage": "communication", "phase": "training"})


# ---- NVIDIA/Megatron-LM ------------------------------------------------------

item(MLM, 412,
     "RMSNorm weights diverge across tensor-parallel ranks with --sequence-parallel",
     """**Describe the bug**
Training a Llama-style model (`--normalization RMSNorm`) with `--tensor-model-parallel-size 4 \
--sequence-parallel`, the loss is about 0.05 higher than with the same run without sequence \
parallelism after 5k steps, and keeps drifting. Comparing the checkpoints of the TP ranks, the \
RMSNorm weights are **different** on every TP rank, while they should be replicated. With \
`--normalization LayerNorm` the weights are identical.

**To Reproduce**
```bash
torchrun --nproc_per_node 8 pretrain_gpt.py \\
    --tensor-model-parallel-size 4 --pipeline-model-parallel-size 1 \\
    --sequence-parallel --normalization RMSNorm \\
    --num-layers 24 --hidden-size 2048 --num-attention-heads 16 \\
    --seq-length 4096 --micro-batch-size 1 --global-batch-size 256 --bf16 ...
```

```python
sd = [torch.load(f"iter_0005000/mp_rank_0{r}/model_optim_rng.pt")["model"] for r in range(4)]
k = "language_model.encoder.layers.0.input_norm.weight"
print([float((sd[0][k] - sd[r][k]).abs().max()) for r in range(4)])
# [0.0, 0.0131, 0.0097, 0.0122]
```

**Expected behavior**
Replicated parameters stay identical on all TP ranks.

**Environment (please complete the following information):**
  - Megatron-LM commit ID: 0609f27
  - PyTorch version: 2.0.1
  - CUDA version: 12.1
  - NCCL version: 2.18.1

**Proposed fix**
`LayerNorm` marks its parameters with `sequence_parallel=True` so their gradients get all-reduced \
across the TP group (`allreduce_layernorm_grads`). `RMSNorm` doesn't set that attribute.
""",
     "kgreen-llm", "2023-06-27T21:04:18Z", "2023-08-30T16:40:02Z",
     ["bug"],
     comments=[
         C("jaredcasper", "2023-06-29T18:22:40Z",
           "Thanks for tracking this down, your analysis is correct. We'll get a fix in."),
         C("kgreen-llm", "2023-08-14T09:01:37Z", "Friendly ping, is there an ETA?"),
         C("jaredcasper", "2023-08-30T16:40:00Z", "Fixed in main by #431."),
     ],
     fixes=[fix(431, "Mark RMSNorm weights as sequence parallel",
                "So that their gradients are all-reduced across the tensor-parallel group when "
                "sequence parallelism is on.\n\nFixes #412",
                "2023-08-30T16:31:55Z",
                F("megatron/model/rms_norm.py",
                  (5, "", """
 
 class RMSNorm(torch.nn.Module):
 
-    def __init__(self, dim: int, eps: float = 1e-6):
+    def __init__(self, dim: int, eps: float = 1e-6, sequence_parallel: bool = False):
         super().__init__()
         self.eps = eps
         self.weight = nn.Parameter(torch.ones(dim))
+        # with sequence parallelism each TP rank normalises a different part of the
+        # sequence: mark the weight so its gradient is all-reduced across TP ranks
+        setattr(self.weight, 'sequence_parallel', sequence_parallel)
 
     def _norm(self, x):
         return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
""")),
                F("megatron/model/transformer.py",
                  (902, "def get_norm(config):", """
                               sequence_parallel=config.sequence_parallel,
                               apply_layernorm_1p=args.apply_layernorm_1p)
     elif args.normalization == "RMSNorm":
-        return RMSNorm(config.hidden_size, config.layernorm_epsilon)
+        return RMSNorm(config.hidden_size, config.layernorm_epsilon,
+                       sequence_parallel=config.sequence_parallel)
     else:
         raise Exception(f"unsupported norm type '{args.normalization}'.")
 
""")))])
code(MLM, 412,
     {"symptom": "incorrect_functionality", "root_cause": "precondition_missing",
      "fix_pattern": "parameter_handling", "stage": "communication", "phase": "training"},
     {"root_cause": "distributed_tensor", "stage": "computation"})


item(MLM, 587,
     "[BUG] --finetune from a torch_dist checkpoint fails: KeyError: 'optimizer'",
     """**Describe the bug**
Starting a fine-tuning run from a checkpoint saved with `--use-dist-ckpt` (format `torch_dist`) \
with `--finetune` (load the model only) crashes in `load_checkpoint`, because the sharded state \
dict that is requested still contains the optimizer and the RNG state.

**Stack trace/logs**
```
 loading distributed checkpoint from /ckpt/gpt-8b at iteration 120000
Traceback (most recent call last):
  File "/workspace/megatron-lm/pretrain_gpt.py", line 243, in <module>
    pretrain(
  File "/workspace/megatron-lm/megatron/training/training.py", line 223, in pretrain
    model, optimizer, opt_param_scheduler = setup_model_and_optimizer(
  File "/workspace/megatron-lm/megatron/training/training.py", line 519, in setup_model_and_optimizer
    args.iteration, args.num_floating_point_operations_so_far = load_checkpoint(
  File "/workspace/megatron-lm/megatron/training/checkpointing.py", line 716, in load_checkpoint
    state_dict, checkpoint_name, release = _load_base_checkpoint(load_dir, rank0=False, **load_kwargs)
  File "/workspace/megatron-lm/megatron/training/checkpointing.py", line 551, in _load_base_checkpoint
    state_dict = dist_checkpointing.load(sharded_state_dict, checkpoint_name, load_strategy)
  File "/workspace/megatron-lm/megatron/core/dist_checkpointing/serialization.py", line 121, in load
    loaded_state_dict = sharded_strategy.load(sharded_state_dict, checkpoint_dir)
  File "/workspace/megatron-lm/megatron/core/dist_checkpointing/strategies/torch.py", line 524, in load
    checkpoint.load_state_dict(pyt_state_dict, fsr, planner=MCoreLoadPlanner())
KeyError: 'optimizer'
```

**To Reproduce**
1. Pretrain with `--use-dist-ckpt --use-distributed-optimizer` and save.
2. Copy only the model files to a new directory (we drop the optimizer to save space, 400 GB).
3. Run with `--load <dir> --finetune --no-load-optim --no-load-rng`.

**Expected behavior**
`--finetune` / `--no-load-optim` should not require the optimizer state to exist.

**Environment (please complete the following information):**
  - Megatron-LM commit ID: core_r0.5.0
  - PyTorch version: 2.2.0a0+81ea7a4 (NGC 24.01)
  - CUDA version: 12.3
  - NCCL version: 2.19.4
""",
     "vsingh-nv", "2024-01-16T08:30:00Z", "2024-03-12T19:12:45Z",
     ["bug"],
     comments=[
         C("mikolajblaz", "2024-01-17T13:40:18Z",
           "Thanks, confirmed. `generate_state_dict` is called with the optimizer regardless of "
           "`--no-load-optim`. Note the same happens with `--no-load-rng`."),
         C("vsingh-nv", "2024-02-13T10:55:01Z", "Any news? We're working around it by saving a dummy optimizer state."),
         C("mikolajblaz", "2024-03-12T19:12:40Z", "Fixed in main with !1035 (mirrored as #612)."),
     ],
     fixes=[fix(612, "dist_checkpointing: do not request optimizer or RNG state that will not be loaded",
                "Build the sharded state dict for loading from what `--finetune`, `--no-load-optim` and "
                "`--no-load-rng` ask for.\n\nFixes #587",
                "2024-03-12T19:05:33Z",
                F("megatron/training/checkpointing.py",
                  (695, "def load_checkpoint(model, optimizer, opt_param_scheduler, load_arg='load', strict=True):", """
     if args.ckpt_format == "torch_dist" and not release:
         # Load the sharded checkpoint
         load_kwargs = {}
-        gen_sd_rng_state = get_rng_state(True)  # we can have rng state
-        gen_sd_optim = optimizer
-        gen_sd_opt_param_scheduler = opt_param_scheduler
-        sharded_state_dict = generate_state_dict(args, model, gen_sd_optim, gen_sd_opt_param_scheduler,
-                                                 gen_sd_rng_state, True)
+        # only request what will be loaded: a fine-tuning checkpoint may hold
+        # just the model, and requesting missing keys fails in the loader
+        load_optim = not args.finetune and not args.no_load_optim
+        load_rng = not args.finetune and not args.no_load_rng
+        gen_sd_rng_state = get_rng_state(True) if load_rng else None
+        gen_sd_optim = optimizer if load_optim else None
+        gen_sd_opt_param_scheduler = opt_param_scheduler if load_optim else None
+        sharded_state_dict = generate_state_dict(args, model, gen_sd_optim, gen_sd_opt_param_scheduler,
+                                                 gen_sd_rng_state, use_dist_ckpt=True)
         load_kwargs['sharded_state_dict'] = sharded_state_dict
 
     state_dict, checkpoint_name, release = _load_base_checkpoint(load_dir, rank0=False, **load_kwargs)
"""),
                  (1041, "def generate_state_dict(args, model, optimizer, opt_param_scheduler,", """
     # Optimizer stuff.
     if not args.no_save_optim:
         if optimizer is not None:
-            state_dict['optimizer'] = (optimizer.sharded_state_dict(state_dict, **(optim_sd_kwargs or {}))
-                                       if use_dist_ckpt else
-                                       optimizer.state_dict())
+            if use_dist_ckpt:
+                state_dict['optimizer'] = optimizer.sharded_state_dict(state_dict, **(optim_sd_kwargs or {}))
+            else:
+                state_dict['optimizer'] = optimizer.state_dict()
         if opt_param_scheduler is not None:
             state_dict['opt_param_scheduler'] = \\
                 opt_param_scheduler.state_dict()
""")))])


item(MLM, 733,
     "Interleaved pipeline schedule hangs with --overlap-p2p-communication when num_microbatches % pp_size != 0",
     """**Describe the bug**
With the interleaved schedule (`--num-layers-per-virtual-pipeline-stage 2`) and \
`--overlap-p2p-communication`, training hangs right at iteration 1 if the number of micro-batches \
is not a multiple of the pipeline size. Example: PP=4, global batch 40, micro batch 1, DP=2 → \
20 micro-batches per DP rank... that one works; global batch 36 → 18 micro-batches → hang.

Without `--overlap-p2p-communication` it fails with an assertion instead:

```
AssertionError: number of microbatches (18) is not divisible by pipeline-model-parallel-size (4) when using interleaved schedule
```

so the overlap path seems to skip the check.

**To Reproduce**
```
--tensor-model-parallel-size 2 --pipeline-model-parallel-size 4 \\
--num-layers 32 --num-layers-per-virtual-pipeline-stage 2 \\
--micro-batch-size 1 --global-batch-size 36 --overlap-p2p-communication
```

**Expected behavior**
The same assertion, before any communication starts.

**Environment (please complete the following information):**
  - Megatron-LM commit ID: 9de386d
  - PyTorch version: 2.3.0a0 (NGC 24.02)
  - CUDA version: 12.3
  - NCCL version: 2.20.3
""",
     "l-moreau", "2024-03-19T14:00:52Z", "2024-04-02T09:47:13Z",
     ["bug"],
     comments=[
         C("deepakn94", "2024-03-20T17:31:04Z",
           "The check lives in the non-overlapped branch only. We'll move it to argument validation so "
           "it fires at startup for every variant."),
         C("l-moreau", "2024-04-02T09:50:30Z", "Thanks, the assertion now fires at startup. Closing."),
     ],
     fixes=[fix(752, "Validate micro-batch divisibility for the interleaved schedule at startup",
                "Fixes #733", "2024-04-02T09:41:26Z",
                F("megatron/training/arguments.py",
                  (208, "def validate_args(args, defaults={}):", """
         assert args.num_layers_per_virtual_pipeline_stage is None, \\
             'If not using pipeline parallelism, virtual pipeline parallelism is not supported'
         args.virtual_pipeline_model_parallel_size = None
+    if args.virtual_pipeline_model_parallel_size is not None:
+        num_microbatches = args.global_batch_size // (args.micro_batch_size * args.data_parallel_size)
+        assert num_microbatches % args.pipeline_model_parallel_size == 0, \\
+            f'number of microbatches ({num_microbatches}) is not divisible by pipeline-model-parallel-size ' \\
+            f'({args.pipeline_model_parallel_size}) when using interleaved schedule'
 
     # Parameters dtype.
     args.params_dtype = torch.float
""")),
                F("megatron/core/pipeline_parallel/schedules.py",
                  (390, "def forward_backward_pipelining_with_interleaving(", """
     num_model_chunks = len(model)
     input_tensors = [[] for _ in range(len(model))]
     output_tensors = [[] for _ in range(len(model))]
+    assert num_microbatches % pipeline_parallel_size == 0, \\
+        'interleaved schedule: num_microbatches must be divisible by the pipeline size'
     forward_data_store = []
     if not forward_only:
         output_tensor_grads = [[] for _ in range(len(model))]
"""),
                  (416, "def forward_backward_pipelining_with_interleaving(", """
     if microbatch_group_size_per_vp_stage is None:
         microbatch_group_size_per_vp_stage = pipeline_parallel_size
 
-    if num_microbatches % pipeline_parallel_size != 0 and not config.overlap_p2p_comm:
-        msg = f'number of microbatches ({num_microbatches}) is not divisible by '
-        msg += f'pipeline-model-parallel-size ({pipeline_parallel_size}) '
-        msg += 'when using interleaved schedule'
-        raise RuntimeError(msg)
-
     model_type = get_model_type(model[0])
     if model_type == ModelType.encoder_and_decoder:
         raise RuntimeError("Interleaving is not supported with an encoder and decoder model.")
""")))])


item(MLM, 902,
     "[BUG] --use-distributed-optimizer uses more memory than the regular optimizer for bf16 models",
     """**Describe the bug**
For a 15B model on 64 GPUs (TP=4, PP=2, DP=8) with `--bf16`, I expected the distributed optimizer \
to save ~10 GB per GPU compared with the regular optimizer (fp32 main params and Adam states \
sharded 8 ways). Instead memory **grows**:

| optimizer | max allocated after 1st step (GB) |
|---|---|
| regular (`--no-use-distributed-optimizer`) | 61.2 |
| `--use-distributed-optimizer` | 66.8 |

`torch.cuda.memory_snapshot()` shows one fp32 tensor **of the full parameter size** per bf16 \
parameter, allocated in `DistributedOptimizer._build_model_and_main_param_groups`, although each \
rank only owns a 1/8 shard.

**To Reproduce**
Any GPT config with `--bf16 --use-distributed-optimizer`; compare `torch.cuda.max_memory_allocated()` \
after the first iteration with and without the flag.

**Expected behavior**
The fp32 main params should only take `numel / dp_size` elements per parameter.

**Environment (please complete the following information):**
  - Megatron-LM commit ID: core_r0.7.0
  - PyTorch version: 2.3.0 (NGC 24.05)
  - CUDA version: 12.4
  - NCCL version: 2.21.5

**Proposed fix**
I think `model_param.detach().view(-1).float()[start:end]` creates the full fp32 copy first and \
the shard is a view into it, so the full copy can never be freed. Slicing before `.float()` should \
fix it.
""",
     "hyun-j", "2024-07-08T04:19:27Z", "2024-09-19T20:55:36Z",
     ["bug"],
     comments=[
         C("deepakn94", "2024-07-09T16:43:50Z",
           "Nice find, that's exactly it: the shard is a view, so it keeps the whole fp32 storage alive."),
         C("hyun-j", "2024-07-10T02:12:18Z",
           "With the slice-then-cast change: 52.9 GB (vs 61.2 GB for the regular optimizer). Happy to "
           "send a PR with a test."),
         C("deepakn94", "2024-07-10T17:05:00Z", "Please do!"),
         C("hyun-j", "2024-07-15T08:33:09Z", "Opened #915."),
         C("github-actions", "2024-09-14T18:01:47Z",
           "Marking as stale. No activity in 60 days."),
         C("deepakn94", "2024-09-19T20:55:30Z", "Merged internally, it's in main now. Thanks @hyun-j!"),
     ],
     fixes=[fix(915, "Distributed optimizer: do not keep full-size fp32 copies of bf16 params alive",
                "The fp32 shard of each bf16/fp16 parameter was created by casting the *whole* "
                "parameter and slicing the result. The slice is a view, so every rank kept a full-size "
                "fp32 copy of every parameter. Slice first, then cast (which copies).\n\n"
                "Adds a test that checks the storage size of the main params.\n\nFixes #902",
                "2024-09-19T20:40:12Z",
                F("megatron/core/optimizer/distrib_optimizer.py",
                  (355, "def _build_model_and_main_param_groups(", """
                     # fp32 params.
                     if model_param.type() in ['torch.cuda.HalfTensor', 'torch.cuda.BFloat16Tensor']:
                         # Clone model -> main.
                         shard_model_param = model_param.detach().view(-1)[param_range.start : param_range.end]
-                        shard_main_param = model_param.detach().view(-1).float()[param_range.start : param_range.end]
+                        # slice before casting: .float() of the shard copies only the shard, while
+                        # a slice of .float() is a view that keeps a full-size fp32 copy alive
+                        shard_main_param = shard_model_param.clone().float()
                         tensor_parallel.copy_tensor_model_parallel_attributes(
                             shard_model_param, model_param
                         )
""")),
                F("megatron/core/utils.py",
                  (93, "def get_attr_wrapped_model(model, attr, allow_none=True, return_model_obj=False):", """
     return getattr(model, attr)
 
 
+def storage_numel(tensor: torch.Tensor) -> int:
+    \"\"\"Number of elements of the storage behind `tensor` (larger than
+    tensor.numel() when `tensor` is a view into a bigger tensor).\"\"\"
+    return tensor.untyped_storage().nbytes() // tensor.element_size()
+
+
 def get_model_type(model):
     return get_attr_wrapped_model(model, 'model_type')
 
""")),
                F("tests/unit_tests/dist_checkpointing/test_optimizer_main_params.py", (0, "", """
+import pytest
+import torch
+
+from megatron.core.optimizer import OptimizerConfig, get_megatron_optimizer
+from megatron.core.utils import storage_numel
+from tests.unit_tests.dist_checkpointing.utils import initialize_gpt_model
+from tests.unit_tests.test_utilities import Utils
+
+
+class TestDistributedOptimizerMainParams:
+
+    def setup_method(self, method):
+        Utils.initialize_model_parallel(tensor_model_parallel_size=1, pipeline_model_parallel_size=1)
+
+    def teardown_method(self, method):
+        Utils.destroy_model_parallel()
+
+    @pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
+    def test_main_params_are_not_views_of_full_copies(self, dtype):
+        model = initialize_gpt_model(use_distributed_optimizer=True, dtype=dtype)
+        config = OptimizerConfig(bf16=dtype == torch.bfloat16, fp16=dtype == torch.float16,
+                                 params_dtype=dtype, use_distributed_optimizer=True)
+        optimizer = get_megatron_optimizer(config, [model])
+
+        for group in optimizer.chained_optimizers[0].shard_fp32_from_float16_groups:
+            for main_param in group:
+                assert main_param.dtype == torch.float32
+                assert storage_numel(main_param) == main_param.numel()
"""), new=True))])


item(MLM, 1088,
     "[BUG] TypeError: DotProductAttention.__init__() got an unexpected keyword argument 'cp_comm_type' with Transformer Engine 1.9",
     """**Describe the bug**
Since the last update of main, building a GPT model with `--transformer-impl transformer_engine` \
fails with Transformer Engine 1.9, which is the version in the NGC 24.08 container we have to use:

```
Traceback (most recent call last):
  File "/workspace/Megatron-LM/pretrain_gpt.py", line 265, in <module>
    pretrain(
  File "/workspace/Megatron-LM/megatron/training/training.py", line 289, in pretrain
    model, optimizer, opt_param_scheduler = setup_model_and_optimizer(
  File "/workspace/Megatron-LM/megatron/training/training.py", line 590, in setup_model_and_optimizer
    model = get_model(model_provider_func, model_type)
  ...
  File "/workspace/Megatron-LM/megatron/core/transformer/attention.py", line 98, in __init__
    self.core_attention = build_module(
  File "/workspace/Megatron-LM/megatron/core/transformer/spec_utils.py", line 100, in build_module
    return module(
  File "/workspace/Megatron-LM/megatron/core/extensions/transformer_engine.py", line 611, in __init__
    super().__init__(
TypeError: DotProductAttention.__init__() got an unexpected keyword argument 'cp_comm_type'
```

The README says TE >= 1.7 is supported.

**To Reproduce**
NGC `pytorch:24.08-py3`, current main, `examples/gpt3/train_gpt3_175b_distributed.sh` scaled down.

**Expected behavior**
Either a version check or a clear error message about the minimum TE version.

**Environment (please complete the following information):**
  - Megatron-LM commit ID: 2cd9f3a
  - PyTorch version: 2.5.0a0 (NGC 24.08)
  - Transformer Engine: 1.9.0
  - CUDA version: 12.6
""",
     "arunav-r", "2024-10-22T12:11:40Z", "2025-03-04T18:26:17Z",
     ["bug"],
     comments=[
         C("ko3n1g", "2024-10-23T09:30:55Z",
           "Thanks for the report. `cp_comm_type` exists since TE 1.10. We'll guard it with a version check."),
         C("arunav-r", "2024-11-27T07:48:03Z", "Still failing on today's main."),
         C("ko3n1g", "2024-11-27T10:02:21Z", "Sorry for the delay, the fix is going through internal CI."),
         C("arunav-r", "2025-02-03T15:16:44Z",
           "Any news? We've been carrying a local patch for three months."),
         C("ko3n1g", "2025-03-04T18:26:10Z", "Landed in main (#1131). Thanks for your patience."),
     ],
     fixes=[fix(1131, "TE: only pass cp_comm_type to DotProductAttention for TE >= 1.10",
                "Fixes #1088", "2025-03-04T18:10:42Z",
                F("megatron/core/extensions/transformer_engine.py",
                  (591, "def __init__(", """
                 if getattr(TEDotProductAttention, "cp_stream") is None:
                     TEDotProductAttention.cp_stream = torch.cuda.Stream()
                 extra_kwargs["cp_stream"] = TEDotProductAttention.cp_stream
-                extra_kwargs["cp_comm_type"] = cp_comm_type
+                if is_te_min_version("1.10.0"):
+                    extra_kwargs["cp_comm_type"] = cp_comm_type
+                elif cp_comm_type != "p2p":
+                    raise ValueError(
+                        f"Transformer Engine {get_te_version()} only supports cp_comm_type='p2p'; "
+                        "upgrade to TE >= 1.10 for other context parallel communication types"
+                    )
             else:
                 assert (
                     self.config.context_parallel_size == 1
""")))])
code(MLM, 1088,
     {"symptom": "crash", "root_cause": "version_incompatibility",
      "fix_pattern": "version_compatibility", "stage": "initialization", "phase": "training"})


# ---- the raw hostile item (invalid UTF-8) -------------------------------------

def hostile_raw_line():
    """One JSON line whose body holds bytes that are not UTF-8: a UTF-16
    byte-order mark (FF FE) and a character cut after 2 of its 3 bytes
    (E4 B8, the start of U+4E2D).  It cannot be written as JSON text, so the
    placeholders are replaced in the encoded bytes."""
    it = {"repo": CAI, "number": 5471,
          "title": "[BUG]: log written on a Windows node is unreadable (byte-order mark, cut-off characters)",
          "body": "### 🐛 Describe the bug\n\n"
                  "In our mixed cluster, rank 3 runs on a Windows workstation. Its log, collected by "
                  "`colossalai run`, starts with a UTF-16 byte-order mark and its last line is cut in "
                  "the middle of a character because the process was killed. Raw bytes as they are "
                  "in the file:\n\n"
                  "```\n@@BOM@@[rank3] INFO: Launching on DESKTOP-7QK2\n"
                  "[rank3] INFO: 数据加载完成 (data loaded)\n"
                  "[rank3] ERROR: 显存不足 @@CUT@@\n```\n\n"
                  "Tools that read the merged log stop at the first invalid byte.\n\n"
                  "### Environment\n\n- colossalai 0.3.6, Windows 11 + WSL2 for rank 3\n",
          "state": "closed", "state_reason": "completed", "author": "mei-ling-w",
          "created_at": "2024-03-15T03:20:44Z", "closed_at": "2024-03-27T15:04:10Z",
          "labels": ["bug"], "url": "https://github.com/%s/issues/5471" % CAI,
          "comments": [C("ver217", "2024-03-15T05:11:09Z",
                         "The file handler should write UTF-8 explicitly; we'll fix it together with #5467.")],
          "fixes": [fix(5482, "[logging] always write log files as UTF-8",
                        "Fixes #5471", "2024-03-27T15:04:02Z",
                        F("colossalai/logging/logger.py",
                          (111, "def log_to_file(self, path: Union[str, Path], mode: str = \"a\", level: str = \"INFO\", suffix: str = None):", """
             path = path.with_name(f"{path.stem}_{suffix}{path.suffix}")
 
         # add file handler
-        file_handler = logging.FileHandler(path, mode)
+        file_handler = logging.FileHandler(path, mode, encoding="utf-8")
         file_handler.setLevel(getattr(logging, level))
         file_handler.addFilter(_StripControlFilter())
         formatter = logging.Formatter(_FORMAT)
""")))]}
    raw = json.dumps(it, ensure_ascii=False).encode("utf-8")
    raw = raw.replace(b"@@BOM@@", b"\xff\xfe").replace(b"@@CUT@@", b"\xe4\xb8 (killed)")
    return raw + b"\n"


# ---- output ------------------------------------------------------------------

# Characters written as \\uXXXX escapes even though JSON allows them raw: C1
# controls, DEL, bidirectional controls and the line/paragraph separators, so
# that the file itself is safe to view.
_ESCAPE_RAW = re.compile("[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")


def dump_line(obj):
    s = json.dumps(obj, ensure_ascii=False)
    return _ESCAPE_RAW.sub(lambda m: "\\u%04x" % ord(m.group()), s)


DIMENSIONS = ("symptom", "root_cause", "fix_pattern", "stage", "phase")


def labels_csv():
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["item", "annotator", "dimension", "code"])
    for it in ITEMS:
        key = name(it["repo"], it["number"])
        if key not in LABELS:
            continue
        for annotator in ("alice", "bob"):
            chosen = LABELS[key][annotator]
            for dim in DIMENSIONS:
                codes = chosen[dim]
                for c in ([codes] if isinstance(codes, str) else codes):
                    w.writerow([key, annotator, dim, c])
    return out.getvalue()


# The screening of the README's study: every item of items.jsonl answered
# by alice and bob on inclusion (include, or a reason to leave it out).
# DeepSpeed#6203 has no fix (closed as a setup limitation): both leave it
# out; on ColossalAI#5102 (a kernel build with one compiler) they differ,
# which the adjudicator settles.  Every other item is included.
SCREENING = {
    name(DS, 6203): {"alice": "no_merged_fix", "bob": "no_merged_fix"},
    name(CAI, 5102): {"alice": "out_of_scope", "bob": "include"},
}


def screening_csv():
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["item", "annotator", "dimension", "code"])
    for it in ITEMS:
        key = name(it["repo"], it["number"])
        for annotator in ("alice", "bob"):
            w.writerow([key, annotator, "inclusion",
                        SCREENING.get(key, {}).get(annotator, "include")])
    return out.getvalue()


def excluded(key):
    """Screened out in the README's study (both screeners agree)."""
    answers = SCREENING.get(key, {})
    return bool(answers) and len(set(answers.values())) == 1 and \
        "include" not in answers.values()


def coding_csv():
    """labels.csv without the items the screening leaves out."""
    rows = labels_csv().splitlines(keepends=True)
    return "".join([rows[0]] + [r for r in rows[1:]
                                if not excluded(r.split(",", 1)[0])])


def main():
    with open(os.path.join(HERE, "items.jsonl"), "w", encoding="utf-8", newline="") as f:
        for it in ITEMS:
            f.write(dump_line(it) + "\n")
    with open(os.path.join(HERE, "hostile-raw.jsonl"), "wb") as f:
        f.write(hostile_raw_line())
    with open(os.path.join(HERE, "labels.csv"), "w", encoding="utf-8", newline="") as f:
        f.write(labels_csv())
    with open(os.path.join(HERE, "screening.csv"), "w", encoding="utf-8", newline="") as f:
        f.write(screening_csv())
    with open(os.path.join(HERE, "coding.csv"), "w", encoding="utf-8", newline="") as f:
        f.write(coding_csv())
    print("wrote %d items, 1 raw hostile item, labels for %d items" % (len(ITEMS), len(LABELS)))


if __name__ == "__main__":
    main()
