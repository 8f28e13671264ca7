# SPDX-License-Identifier: GPL-2.0
#
# ktap.sh: the KTAP output of the user_events shell tests, sourced by
# cli_test.sh and clients_test.sh. pass/fail number the checks as they run;
# ktap_done prints the plan (the checks that ran, or checks that a plan
# given first with ktap_plan was kept), the totals, and returns the status.

ktap_testno=0
ktap_failed=0
ktap_planned=

echo "TAP version 13"

# ktap_skip_all REASON: nothing runs (exit 4, kselftest's skip)
ktap_skip_all() {
	echo "1..0 # SKIP $1"
	exit 4
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

# comment FILE...: lines of output as KTAP diagnostics
comment() {
	sed 's/^/# /' "$@"
}

ktap_done() {
	[ -n "$ktap_planned" ] || echo "1..$ktap_testno"
	echo "# Totals: pass:$((ktap_testno - ktap_failed)) fail:$ktap_failed" \
		"xfail:0 xpass:0 skip:0 error:0"
	if [ -n "$ktap_planned" ] && [ "$ktap_testno" != "$ktap_planned" ]; then
		echo "# $ktap_testno checks ran of the $ktap_planned planned"
		return 1
	fi
	[ "$ktap_failed" = 0 ]
}
