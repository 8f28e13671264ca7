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

dir=${1:?usage: fleet_report.sh DIR}
TRACE_CMD=${TRACE_CMD:-trace-cmd}
DOTNAMES=${DOTNAMES:-$(dirname "$0")/../../../tracing/user_events/trace-dat-dotnames.sh}
failed=0
checks=0

result() {
	checks=$((checks + 1))
	if [ "$2" = pass ]; then
		echo "host fleet $1=pass"
	else
		echo "host fleet $1=fail"
		failed=$((failed + 1))
	fi
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

declare -A report
for dat in "$dir"/*.dat; do
	[ -f "$dat" ] || continue
	scen=$(basename "$dat" .dat)
	report[$scen]=$dir/$scen.report
	if "$TRACE_CMD" report -i "$dat" > "$dir/$scen.report" 2> "$dir/$scen.report.err"; then
		result "${scen}_report" pass
	else
		result "${scen}_report" fail
		sed 's/^/# /' "$dir/$scen.report.err" | head -n 20
	fi
done

# Multi-format events, decoded by this trace-cmd once trace-dat-dotnames
# renamed NAME.ID to NAME_ID in a copy of the file: scenario main_dotnames
if [ -f "$dir/main.multi" ] && [ -f "$dir/main.dat" ]; then
	rep=$dir/main_dotnames.report
	if "$DOTNAMES" "$dir/main.dat" "$dir/main.dotnames" 2> "$rep.err" &&
	   grep -q '^trace-dat-dotnames: 1 event names with a dot renamed$' "$rep.err" &&
	   "$TRACE_CMD" report -i "$dir/main.dotnames" > "$rep" 2>> "$rep.err"; then
		report[main_dotnames]=$rep
		result main_dotnames_report pass
	else
		result main_dotnames_report fail
		sed 's/^/# /' "$rep.err" | head -n 20
	fi
fi

# Every expected field, in a decoded record of its event
while IFS=$'\t' read -r scen marker want; do
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
if [ -f "$dir/main.multi" ]; then
	IFS=$'\t' read -r scen name n desc < "$dir/main.multi"
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
if [ -f "$dir/late.undecoded" ]; then
	read -r scen name n < "$dir/late.undecoded"
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

echo "# fleet_report: $((checks - failed)) of $checks checks passed"
[ "$failed" = 0 ]
