# SPDX-License-Identifier: MIT
# bash completion for bugcoder: commands, subcommands, options and the
# study's items, dimensions, codes, members and rounds, all asked of
# `bugcoder __complete` (which reads the option tables and the study).
# Installed in share/bash-completion/completions/bugcoder; to try it
# from a source tree: `source completion/bugcoder.bash`.

_bugcoder()
{
	local line=${COMP_LINE:0:COMP_POINT}
	local -a words cands
	local cur pre brk i nospace=

	# the words as the user sees them: bash splits "--round=r1" and
	# "symptom=hang" at '=' and ':' (COMP_WORDBREAKS), bugcoder does not
	IFS=$' \t\n' read -r -a words <<<"$line"
	[[ -z $line || $line == *[[:space:]] ]] && words+=("")
	cur=${words[${#words[@]}-1]}
	# readline replaces only what follows the last word break ('=' and
	# ':' in COMP_WORDBREAKS): what comes before it is taken off the
	# candidates
	brk=
	[[ $COMP_WORDBREAKS == *=* ]] && brk+="="
	[[ $COMP_WORDBREAKS == *:* ]] && brk+=":"
	pre=
	[[ -n $brk ]] && pre=${cur%"${cur##*[$brk]}"}
	# one candidate a line, taken as it is (no globbing, no eval)
	mapfile -t cands < <(command "${COMP_WORDS[0]:-bugcoder}" \
		__complete "${words[@]:1}" 2>/dev/null)
	COMPREPLY=()
	for i in "${cands[@]}"; do
		[[ $i == *[=,] ]] && nospace=1
		COMPREPLY+=("${i#"$pre"}")
	done
	if [[ -n $nospace ]] && type compopt >/dev/null 2>&1; then
		compopt -o nospace 2>/dev/null
	fi
	return 0
}

complete -o bashdefault -o default -F _bugcoder bugcoder
