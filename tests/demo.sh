#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: a fresh copy of the bundled sample study, opened in the
# annotator's screen (or summarised, when not on a terminal).
set -e
cd "$(dirname "$0")/.."
dir=tests/tmp/demo
rm -rf "$dir"
mkdir -p "$dir"
db="$dir/study.db"
bc() { ./bugcoder --study "$db" "$@"; }
bc init --codebook codebooks/llm-framework-bugs.json \
	--title "Sample: bugs in distributed LLM frameworks" >/dev/null
bc import tests/sample/items.jsonl >/dev/null
bc member add alice --role annotator >/dev/null
bc member add bob --role annotator >/dev/null
bc member add carol --role adjudicator >/dev/null
bc member add demo --role annotator >/dev/null
# alice and bob have coded part of the sample already: a pilot of 8 items
# and a first round of 12, both closed; carol settled three of the
# disagreements, so every table of `bugcoder report` has content
pilot=microsoft/DeepSpeed#3468,microsoft/DeepSpeed#4187,microsoft/DeepSpeed#4422
pilot=$pilot,microsoft/DeepSpeed#4650,microsoft/DeepSpeed#4903
pilot=$pilot,microsoft/DeepSpeed#5012,microsoft/DeepSpeed#5240
pilot=$pilot,microsoft/DeepSpeed#5561
r1=microsoft/DeepSpeed#5733,microsoft/DeepSpeed#5890,microsoft/DeepSpeed#6011
r1=$r1,microsoft/DeepSpeed#6203,hpcaitech/ColossalAI#3105
r1=$r1,hpcaitech/ColossalAI#3562,hpcaitech/ColossalAI#4261
r1=$r1,hpcaitech/ColossalAI#4799,hpcaitech/ColossalAI#5412
r1=$r1,hpcaitech/ColossalAI#5702,NVIDIA/Megatron-LM#412,NVIDIA/Megatron-LM#1088
bc round create pilot --items "$pilot" --annotators alice,bob >/dev/null
bc round create r1 --items "$r1" --annotators alice,bob >/dev/null
bc labels import tests/sample/labels.csv --submit >/dev/null
bc round close pilot >/dev/null
bc round close r1 >/dev/null
bc --as carol resolve microsoft/DeepSpeed#3468 \
	root_cause=distributed_communication --rationale "the group mismatch" \
	>/dev/null
bc --as carol resolve microsoft/DeepSpeed#5240 phase=inference \
	--rationale "serving path only" >/dev/null
bc --as carol resolve microsoft/DeepSpeed#4903 fix_pattern=algorithm_rewrite \
	--rationale "the kernel was rewritten" >/dev/null
# the rest of the sample is an open round for demo (the one opening the
# screen) and alice
bc round create r2 --items all --annotators demo,alice >/dev/null
if [ -t 0 ] && [ -t 1 ]; then
	echo "Opening the sample study as annotator 'demo' (q quits, ? helps)."
	exec ./bugcoder --study "$db" --as demo code
fi
bc status
echo "Try: ./bugcoder --study $db report --by stage --effort-by phase --hard 30,5"
