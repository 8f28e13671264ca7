#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# conformance_test.sh: the base tree's own user_events kselftests (abi_test,
# dyn_test, ftrace_test and perf_test of Linux 6.12), built unmodified
# against our uapi header by scripts/build-conformance: a program written
# for Linux 6.4+ must build against it and run on our kernel as it is.
# Each upstream case runs on its own (the harness's -r) and is one KTAP
# result, from the harness's own verdict: its result line and its exit
# status. Cases run one after the other (they share event names).
#
# One known difference: ftrace_test's print_fmt expects %d/%u for 1- and
# 2-byte integer fields, which we print with %hhd/%hhu/%hd/%hu so that
# libtraceevent shows a negative s8/s16 as negative (user_events.rst, "Field
# types and data layout"). That
# case is a SKIP naming this only when the difference is exactly that: it
# passes when those length modifiers are taken out of the print fmt lines it
# reads (plain_fmt.so, built with the tests), and an event with a field of
# every integer type shows them on exactly its 1- and 2-byte fields, with d
# or u as the field is signed or not. Anything else is a failure.
#
# The binaries: the directory $1, else $UE_CONFORMANCE_DIR, else upstream/
# next to this script. A missing binary is a failure (run
# scripts/build-conformance). Prints KTAP; exits 0 when nothing failed, 1
# otherwise, 4 (skip) when not run as root.

dir=$(cd "$(dirname "$0")" && pwd)
bindir=${1:-${UE_CONFORMANCE_DIR:-$dir/upstream}}
tracefs=/sys/kernel/tracing
tests="abi_test dyn_test ftrace_test perf_test"
known_case=ftrace_test.user.print_fmt
known_reason="1- and 2-byte integer fields print with %hhd/%hd/%hhu/%hu so that"
known_reason+=" libtraceevent sign-extends them, upstream expects %d/%u"
known_reason+=" (user_events.rst: Field types)"

echo "TAP version 13"
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP must be run as root"
	exit 4
fi

tmp=$(mktemp -d /tmp/conformance_test.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# list BINARY: its cases as fixture[.variant].test, one a line, from the
# harness's -l table (columns of 20 and 25 characters; the rows pair a
# fixture's variants with its tests, which run as their product)
list() {
	"$1" -l 2>&1 | awk '
	function trim(s) { gsub(/^ +| +$/, "", s); return s }
	/^# FIXTURE/ || /^---/ { next }
	{
		f = trim(substr($0, 1, 20)); v = trim(substr($0, 22, 25))
		t = trim(substr($0, 48))
		if (f != "") { cur = f; order[++nf] = f }
		if (v != "") vars[cur] = vars[cur] " " v
		if (t != "") tests[cur] = tests[cur] " " t
	}
	END {
		for (i = 1; i <= nf; i++) {
			f = order[i]
			nt = split(tests[f], ta, " ")
			nv = split(vars[f], va, " ")
			if (nv == 0) { nv = 1; va[1] = "" }
			for (j = 1; j <= nv; j++)
				for (k = 1; k <= nt; k++)
					print f (va[j] == "" ? "" : "." va[j]) "." ta[k]
		}
	}'
}

# The plan: every case of every binary; a missing binary, or one listing
# nothing, is one failing result
: > "$tmp/cases"
for t in $tests; do
	if [ ! -x "$bindir/$t" ]; then
		echo "$t -" >> "$tmp/cases"
		continue
	fi
	n=0
	for c in $(list "$bindir/$t"); do
		echo "$t $c" >> "$tmp/cases"
		n=$((n + 1))
	done
	[ $n -gt 0 ] || echo "$t -" >> "$tmp/cases"
done
echo "1..$(wc -l < "$tmp/cases")"
[ -f "$bindir/scaled_alarm.so" ] ||
	echo "# no $bindir/scaled_alarm.so (run scripts/build-conformance):" \
		"each case's timeout is not scaled"

# Events of an earlier test with upstream's names make its cases fail
for e in __test_event __abi_event; do
	[ ! -d "$tracefs/events/user_events/$e" ] ||
		echo "# note: $e exists before the run"
done

testno=0
failed=0
result() {	# ok|not ok NAME [DIRECTIVE]
	testno=$((testno + 1))
	echo "$1 $testno $2${3:+ # $3}"
	[ "$1" = ok ] || failed=$((failed + 1))
}

# run BINARY CASE [PRELOAD]: the case alone (with the LD_PRELOAD library
# PRELOAD, and scaled_alarm.so: the harness's timeout of the case times
# USER_EVENTS_TIMEOUT_SCALE), its output in $tmp/out; prints pass, fail or
# "skip REASON" as the harness decided
run() {
	local rc line preload=$3

	[ -f "$bindir/scaled_alarm.so" ] && preload="$bindir/scaled_alarm.so${3:+ $3}"
	env ${preload:+LD_PRELOAD="$preload"} "$1" -r "$2" < /dev/null > "$tmp/out" 2>&1
	rc=$?
	line=$(grep -E "^(not )?ok 1 $2( |\$)" "$tmp/out")
	if ! grep -qx '1\.\.1' "$tmp/out" || [ -z "$line" ]; then
		echo "fail"	# not run, or not alone: a wrong name, a crash
	elif [[ $line =~ ^ok\ 1\ [^\ ]+\ \#\ SKIP\ ?(.*)$ ]]; then
		echo "skip ${BASH_REMATCH[1]:-no reason given}"
	elif [ $rc = 0 ] && [ "$line" = "ok 1 $2" ]; then
		echo pass
	else
		echo fail
	fi
}

# fmt_check: an event with a field of every integer type and some others;
# in its print fmt each 1-byte field has %hh, each 2-byte one %h, the 8-byte
# ones %ll and the others none, with d or u as the field is signed or not,
# and no argument that is not a field has %h. Prints what differs.
fmt_check() {
	local ev=__conformance_fmt rc fields

	# a to n the integers, o to q the arrays and strings
	fields="u8 a; s8 b; char c; unsigned char d; u16 e; s16 f; short g; unsigned short h;"
	fields+=" u32 i; s32 j; int k; unsigned int l; u64 m; s64 n;"
	fields+=" char[8] o; __data_loc char[] p; __rel_loc char[] q"
	echo "!u:$ev" >> "$tracefs/dynamic_events" 2>/dev/null
	if ! echo "u:$ev $fields" >> "$tracefs/dynamic_events"; then
		echo "cannot create u:$ev $fields in dynamic_events"
		return 1
	fi
	awk '
	/^\tfield:/ && !/common_/ {
		split($0, p, ";")
		decl = p[1]; sub(/^\tfield:/, "", decl)
		nw = split(decl, w, " "); name = w[nw]; sub(/\[.*/, "", name)
		size[name] = p[3]; sub(/.*size:/, "", size[name])
		sgn[name] = p[4]; sub(/.*signed:/, "", sgn[name])
		nfields++
	}
	/^print fmt: "/ { pf = substr($0, 13) }
	END {
		q = index(pf, "\", ")
		fmt = substr(pf, 1, q - 1); rest = substr(pf, q + 3)
		nconv = 0
		while (match(fmt, /%[-#0 +]*[0-9]*[hlLzjt]*[a-zA-Z]/)) {
			conv[++nconv] = substr(fmt, RSTART + 1, RLENGTH - 1)
			fmt = substr(fmt, RSTART + RLENGTH)
		}
		# the arguments, split at the commas outside parentheses
		nargs = 0; depth = 0; a = ""
		for (i = 1; i <= length(rest); i++) {
			ch = substr(rest, i, 1)
			if (ch == "(") depth++
			if (ch == ")") depth--
			if (ch == "," && depth == 0) { arg[++nargs] = a; a = ""; continue }
			a = a ch
		}
		arg[++nargs] = a
		if (nfields != 17 || nconv != nargs) {
			print "print fmt: \"" pf
			print nfields " fields, " nconv " conversions, " nargs " arguments"
			exit 1
		}
		bad = 0
		for (i = 1; i <= nconv; i++) {
			a = arg[i]; gsub(/^ +| +$/, "", a)
			c = conv[i]
			if (a !~ /^REC->/ || !(substr(a, 6) in size)) {
				if (c ~ /h/) { print a ": %" c; bad++ }
				continue
			}
			f = substr(a, 6)
			if (f !~ /^[a-n]$/) {	# the arrays and strings
				if (c ~ /h/) { print f ": %" c; bad++ }
				continue
			}
			want = size[f] == 1 ? "hh" : size[f] == 2 ? "h" : size[f] == 8 ? "ll" : ""
			want = want (sgn[f] == 1 ? "d" : "u")
			if (c != want) {
				print f " (size " size[f] ", signed " sgn[f] "): %" c \
					", expected %" want
				bad++
			}
		}
		exit bad != 0
	}' "$tracefs/events/user_events/$ev/format"
	rc=$?
	echo "!u:$ev" >> "$tracefs/dynamic_events"
	return $rc
}

# known_difference BINARY: whether print_fmt's failure is exactly the known
# difference; says why not
known_difference() {
	local verdict

	if [ ! -r "$bindir/plain_fmt.so" ]; then
		echo "no $bindir/plain_fmt.so (run scripts/build-conformance)"
		return 1
	fi
	verdict=$(run "$1" user.print_fmt "$bindir/plain_fmt.so")
	if [ "$verdict" != pass ]; then
		echo "it fails ($verdict) even with %hh/%h taken out of print fmt:"
		cat "$tmp/out"
		return 1
	fi
	if ! fmt_check > "$tmp/fmt" 2>&1; then
		echo "our print fmt does not use %hh/%h exactly on the 1-/2-byte fields:"
		cat "$tmp/fmt"
		return 1
	fi
}

# The harness's own output of a case that did not pass, indented: its
# result lines are not ours
while read -r t c; do
	name=$t.$c
	if [ "$c" = - ]; then
		if [ -x "$bindir/$t" ]; then
			result "not ok" "$t" "$bindir/$t lists no test cases"
		else
			result "not ok" "$t" "no $bindir/$t: run scripts/build-conformance"
		fi
		continue
	fi
	verdict=$(run "$bindir/$t" "$c")
	case $verdict in
	pass)
		result ok "$name" ;;
	skip*)
		result ok "$name" "SKIP ${verdict#skip }" ;;
	*)
		if [ "$name" = "$known_case" ]; then
			# the failing assertion, for the log
			grep -E 'Expected|print_fmt' "$tmp/out" | sed 's/^/#   /'
			if known_difference "$bindir/$t" > "$tmp/why"; then
				result ok "$name" "SKIP known difference: $known_reason"
				continue
			fi
			sed 's/^/#   /' "$tmp/why"
		else
			sed 's/^/#   /' "$tmp/out"
		fi
		result "not ok" "$name" ;;
	esac
done < "$tmp/cases"

[ $failed = 0 ]
