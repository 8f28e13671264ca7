#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fleet_report.sh DIR: the collector's side of fleet_test.sh, run where the
# files went (make check: on the host, whose trace-cmd never saw the
# guest's tracefs). Decodes each file trace-cmd listen received
# (DIR/SCENARIO.dat) with "trace-cmd report" and checks every field that
# fleet_test.sh wrote (DIR/expect: SCENARIO, marker, FIELD=VALUE), the
# number of records of DIR/*.count, the multi-format event in a copy
# renamed by tools/tracing/user_events/trace-dat-dotnames.sh (main_dotnames),
# and for the event created after the recording started
# (DIR/late.undecoded) that the file holds its records but nothing decodes
# them.
#
# Prints one "NAME=pass" or "NAME=fail" line per check (scripts/check
# counts them) and diagnostics as "# " lines; exits 0 when all passed.
#
# A scenario whose file is missing, empty or cannot be decoded is one
# result, SCENARIO_report, naming why, and none of the checks that read it
# runs (main_dotnames is decoded from main's file). The result is a skip
# ("NAME=skip") when fleet_test.sh already failed the file's reception in
# the guest and said why (DIR/SCENARIO.notreceived), else a failure.

dir=${1:?usage: fleet_report.sh DIR}
TRACE_CMD=${TRACE_CMD:-trace-cmd}
DOTNAMES=${DOTNAMES:-$(dirname "$0")/../../../tracing/user_events/trace-dat-dotnames.sh}
failed=0
skipped=0
checks=0

result() {
	checks=$((checks + 1))
	case $2 in
	pass) echo "host fleet $1=pass" ;;
	skip) echo "host fleet $1=skip"; skipped=$((skipped + 1)) ;;
	*) echo "host fleet $1=fail"; failed=$((failed + 1)) ;;
	esac
}

# line_has LINE FIELD=VALUE: LINE shows FIELD=VALUE between spaces
line_has() {
	local line=" $1 "

	line=${line//$'\t'/ }
	[[ $line == *" $2 "* ]]
}

if [ ! -s "$dir/expect" ]; then
	result "expectations from the guest" fail
	echo "# no $dir/expect: fleet_test.sh did not run or export"
	exit 1
fi

# report[SCEN]: its decoded file; unusable[SCEN]: why there is none, and
# notrun[SCEN]: how many of its checks did not run for that
declare -A report unusable notrun

# no_input SCEN WHY: SCEN's one result, for every check that reads it
no_input() {
	local scen=$1 why=$2 guest=$dir/$1.notreceived

	unusable[$scen]=$why
	notrun[$scen]=0
	if [ -s "$guest" ]; then
		result "${scen}_report" skip
		echo "# $scen: $why; the guest failed ${scen}_file_received: $(head -n 1 "$guest")"
	else
		result "${scen}_report" fail
		echo "# $scen: $why"
	fi
}

# not_run SCEN [N]: true, and N checks (1) of SCEN not run, when SCEN has no input
not_run() {
	[ -n "${unusable[$1]:-}" ] || return 1
	notrun[$1]=$((notrun[$1] + ${2:-1}))
}

# The scenarios: those of the expectations and of the files received
scenarios=$({
	cut -f1 "$dir/expect"
	for f in "$dir"/*.count "$dir"/*.multi "$dir"/*.undecoded; do
		[ -f "$f" ] && cut -f1 "$f" | cut -d' ' -f1
	done
	for f in "$dir"/*.dat; do
		[ -f "$f" ] && basename "$f" .dat
	done
} | grep -vx main_dotnames | sort -u)
for scen in $scenarios; do
	dat=$dir/$scen.dat
	if [ ! -f "$dat" ]; then
		no_input "$scen" "no file $dat from the collector"
	elif [ ! -s "$dat" ]; then
		no_input "$scen" "the collector's file $dat is empty"
	elif "$TRACE_CMD" report -i "$dat" > "$dir/$scen.report" 2> "$dir/$scen.report.err"; then
		report[$scen]=$dir/$scen.report
		result "${scen}_report" pass
	else
		no_input "$scen" "trace-cmd report cannot decode $dat"
		sed 's/^/# /' "$dir/$scen.report.err" | head -n 20
	fi
done

# Multi-format events, decoded by this trace-cmd once trace-dat-dotnames
# renamed NAME.ID to NAME_ID in a copy of the file: scenario main_dotnames
if [ -n "${unusable[main]:-}" ]; then
	unusable[main_dotnames]="decoded from main's file: ${unusable[main]}"
	notrun[main_dotnames]=0
elif [ -f "$dir/main.multi" ] && [ -f "$dir/main.dat" ]; then
	rep=$dir/main_dotnames.report
	if "$DOTNAMES" "$dir/main.dat" "$dir/main.dotnames" 2> "$rep.err" &&
	   grep -q '^trace-dat-dotnames: 1 event names with a dot renamed$' "$rep.err" &&
	   "$TRACE_CMD" report -i "$dir/main.dotnames" > "$rep" 2>> "$rep.err"; then
		report[main_dotnames]=$rep
		result main_dotnames_report pass
	else
		no_input main_dotnames \
			"trace-dat-dotnames or trace-cmd report failed on a copy of main's file"
		sed 's/^/# /' "$rep.err" | head -n 20
	fi
fi

# Every expected field, in a decoded record of its event
while IFS=$'\t' read -r scen marker want; do
	not_run "$scen" && continue
	rep=${report[$scen]:-}
	name="${scen}${marker// /_}${want%%=*}=${want#*=}"
	name=${name// /_}
	if [ -z "$rep" ]; then
		result "$name" fail
		echo "# no file received for $scen"
		continue
	fi
	ok=0
	while IFS= read -r line; do
		if line_has "$line" "$want"; then
			ok=1
			break
		fi
	done < <(grep -F -- "$marker" "$rep")
	if [ $ok = 1 ]; then
		result "$name" pass
	else
		result "$name" fail
		echo "# expected '$want' in a line with '$marker' of $rep:"
		grep -F -m 3 -- "$marker" "$rep" | sed 's/^/# /'
	fi
done < "$dir/expect"

# Records per event
for f in "$dir"/*.count; do
	[ -f "$f" ] || continue
	while IFS=$'\t' read -r scen marker n; do
		not_run "$scen" && continue
		rep=${report[$scen]:-/dev/null}
		got=$(grep -c -F -- "$marker" "$rep")
		if [ "$got" = "$n" ]; then
			result "${scen}_records${marker// /_}$n" pass
		else
			result "${scen}_records${marker// /_}$n" fail
			echo "# $scen: $got records with '$marker', expected $n"
		fi
	done < "$f"
done

# A multi-format event: its format (name NAME.ID) is in the file with
# every field, its records arrived, and this trace-cmd's libtraceevent
# cannot parse the name (its parser stops at the dot), so it shows them
# as unknown; should it learn to, the last check says so
[ -f "$dir/main.multi" ] && IFS=$'\t' read -r scen name n desc < "$dir/main.multi"
if [ -f "$dir/main.multi" ] && ! not_run "$scen" 2; then
	rep=${report[$scen]:-/dev/null}
	"$TRACE_CMD" dump --events -i "$dir/$scen.dat" > "$dir/$scen.events" 2>&1
	ok=1
	grep -q "^name: $name\.[0-9a-f]*\$" "$dir/$scen.events" || ok=0
	IFS=';' read -ra fields <<< "${desc#* }"
	for f in "${fields[@]}"; do
		f=${f# }
		grep -qE "field:[^;]* ${f##* }(\[[0-9]*\])?;" "$dir/$scen.events" || ok=0
	done
	if [ $ok = 1 ]; then
		result "${scen}_${name}_format_travelled" pass
	else
		result "${scen}_${name}_format_travelled" fail
		grep -A12 "^name: $name" "$dir/$scen.events" | sed 's/^/# /'
	fi
	unknown=$(grep -c 'UNKNOWN EVENT' "$rep")
	if [ "$unknown" = "$n" ]; then
		result "${scen}_${name}_records_arrived" pass
	else
		result "${scen}_${name}_records_arrived" fail
		echo "# $scen: $unknown unknown records, expected the $n of $name"
	fi
fi

# The event created after the recording started: its records came but
# the collector has no format for them
[ -f "$dir/late.undecoded" ] && read -r scen name n < "$dir/late.undecoded"
if [ -f "$dir/late.undecoded" ] && ! not_run "$scen" 2; then
	rep=${report[$scen]:-/dev/null}
	decoded=$(grep -c -F -- " $name:" "$rep")
	unknown=$(grep -c 'UNKNOWN EVENT' "$rep")
	echo "# $scen: $decoded records of $name decoded, $unknown lines of unknown events"
	grep -m 3 'UNKNOWN EVENT' "$rep" | sed 's/^/# /'
	if [ "$decoded" = 0 ]; then
		result "${scen}_${name}_not_decoded" pass
	else
		result "${scen}_${name}_not_decoded" fail
	fi
	if [ "$unknown" = "$n" ]; then
		result "${scen}_${name}_records_arrived_undecodable" pass
	else
		result "${scen}_${name}_records_arrived_undecodable" fail
	fi
fi

for scen in "${!unusable[@]}"; do
	echo "# $scen: ${notrun[$scen]} checks not run: ${unusable[$scen]}"
done
echo "# fleet_report: $((checks - failed - skipped)) of $checks checks passed," \
	"$skipped skipped"
[ "$failed" = 0 ] && [ "$skipped" = 0 ]
