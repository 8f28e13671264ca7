# SPDX-License-Identifier: GPL-2.0
#
# ktap.sh: the KTAP output of the user_events shell tests, sourced by
# cli_test.sh, clients_test.sh and fleet_test.sh. pass/fail number the
# checks as they run; ktap_done prints the plan (the checks that ran, or
# checks that a plan given first with ktap_plan was kept), the totals, and
# returns the status.
#
# And how long to wait: USER_EVENTS_TIMEOUT_SCALE (a positive decimal,
# default 1) multiplies every time bound, as ue_helpers.h does for the C
# tests. Sourced with UE_TIMING_ONLY=1 (a script a test generates, the
# host's scripts/) this file defines ue_scale, ue_scale_s and ue_wait alone
# and prints nothing.

# The factor: 1 when unset or not a positive decimal (said once, here)
ue_factor=${USER_EVENTS_TIMEOUT_SCALE:-1}
if ! [[ $ue_factor =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]] ||
	! awk -v f="$ue_factor" 'BEGIN { exit !(f > 0) }'; then
	echo "# USER_EVENTS_TIMEOUT_SCALE='$ue_factor' is not a positive number: 1 used" >&2
	ue_factor=1
fi

# ue_scale SECONDS: SECONDS times the factor (a decimal, at least 0.001)
ue_scale() {
	awk -v s="$1" -v f="$ue_factor" 'BEGIN {
		v = int(s * f * 1000 + 0.5) / 1000
		printf "%.15g\n", v < 0.001 ? 0.001 : v }'
}

# ue_scale_s SECONDS: SECONDS times the factor, rounded up to whole seconds (at least 1)
ue_scale_s() {
	awk -v s="$1" -v f="$ue_factor" 'BEGIN {
		v = s * f; w = int(v); if (w < v) w++
		printf "%d\n", w < 1 ? 1 : w }'
}

# ue_wait SECONDS WHAT CMD...: CMD, tried again after short pauses until it
# succeeds or SECONDS times the factor went by. Returns 0 when it did; else
# prints "# wait expired after N ms (factor F): WHAT" and returns 1.
ue_wait() {
	local what=$2 start end now pause=0.01

	start=${EPOCHREALTIME/[.,]/}
	end=$((start + $(awk -v s="$1" -v f="$ue_factor" 'BEGIN { printf "%d", s * f * 1000000 }')))
	shift 2
	until "$@"; do
		now=${EPOCHREALTIME/[.,]/}
		if [ "$now" -ge "$end" ]; then
			now=$(((now - start) / 1000))
			echo "# wait expired after $now ms (factor $ue_factor): $what"
			return 1
		fi
		sleep "$pause"
		case $pause in
		0.01) pause=0.02 ;;
		0.02) pause=0.05 ;;
		*) pause=0.1 ;;
		esac
	done
}

[ "${UE_TIMING_ONLY:-}" = 1 ] && return 0

ktap_testno=0
ktap_failed=0
ktap_skipped=0
ktap_planned=

echo "TAP version 13"

# ktap_skip_all REASON: nothing runs (exit 4, kselftest's skip)
ktap_skip_all() {
	echo "1..0 # SKIP $1"
	exit 4
}

# ktap_bail REASON: the test cannot go on (KTAP's "Bail out!", a failure)
ktap_bail() {
	echo "Bail out! $*"
	exit 1
}

# ktap_plan N: the number of checks to come, when the test knows it first
ktap_plan() {
	ktap_planned=$1
	echo "1..$1"
}

pass() {
	ktap_testno=$((ktap_testno + 1))
	echo "ok $ktap_testno $1"
}

fail() {
	ktap_testno=$((ktap_testno + 1))
	ktap_failed=$((ktap_failed + 1))
	echo "not ok $ktap_testno $1"
}

# skip NAME REASON: a check that could not run (what it needed failed, and
# that failure is reported once, by its own check)
skip() {
	ktap_testno=$((ktap_testno + 1))
	ktap_skipped=$((ktap_skipped + 1))
	echo "ok $ktap_testno $1 # SKIP $2"
}

# comment FILE...: lines of output as KTAP diagnostics
comment() {
	sed 's/^/# /' "$@"
}

# run_tool NAME OUTPUT CMD...: CMD, its output in OUTPUT, at most the test's
# $tool_timeout seconds (scaled); its status. Each run ends with a line that
# gives its status and its output's size. A run that the bound stopped says
# so: "wait expired after N s (factor F): NAME to finish". A run that failed
# also shows its output's last lines, the space left where OUTPUT is and the
# memory left, so that a failure seen once can be told apart afterwards.
run_tool() {
	local name=$1 out=$2 rc

	shift 2
	echo "# $name: $*" | cut -c1-300
	timeout -k "$(ue_scale 10)" "$tool_timeout" "$@" > "$out" 2>&1
	rc=$?
	echo "# $name: status $rc, $(wc -c < "$out") bytes of output"
	# 124: timeout stopped it; 137: and had to kill it
	[ $rc = 124 ] || [ $rc = 137 ] &&
		echo "# wait expired after $tool_timeout s (factor $ue_factor): $name to finish"
	if [ $rc != 0 ]; then
		tail -n 5 "$out" | comment
		df -k "$(dirname "$out")" | comment
		grep -E '^(MemAvailable|MemFree):' /proc/meminfo | comment
	fi
	return $rc
}

# retired_gone WHAT: no retired event left, so that none goes while a tool
# lists the systems (trace-cmd record stops at a directory gone). The
# caller has cleared the buffers that held their records. The grace
# (kernel.user_events_retired_grace) is 0 while this waits, then as it was.
retired_gone() {
	local g=/proc/sys/kernel/user_events_retired_grace saved rc=0

	saved=$(cat "$g") || return
	echo 0 > "$g"
	ue_wait 300 "$1" sh -c \
		"! ls -d /sys/kernel/tracing/events/user_events*_retired > /dev/null 2>&1" ||
		rc=1
	echo "$saved" > "$g"
	return $rc
}

ktap_done() {
	[ -n "$ktap_planned" ] || echo "1..$ktap_testno"
	echo "# Totals: pass:$((ktap_testno - ktap_failed - ktap_skipped)) fail:$ktap_failed" \
		"xfail:0 xpass:0 skip:$ktap_skipped error:0"
	if [ -n "$ktap_planned" ] && [ "$ktap_testno" != "$ktap_planned" ]; then
		echo "# $ktap_testno checks ran of the $ktap_planned planned"
		return 1
	fi
	[ "$ktap_failed" = 0 ]
}
