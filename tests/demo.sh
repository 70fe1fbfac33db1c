#!/bin/sh
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
# alice and bob have coded part of the sample already
bc labels import tests/sample/labels.csv --submit >/dev/null
if [ -t 0 ] && [ -t 1 ]; then
	echo "Opening the sample study as annotator 'demo' (q quits, ? helps)."
	exec ./bugcoder --study "$db" --as demo code
fi
bc status
